package objstore

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"
)

// defaultRegion is the region asked for when neither the environment nor a profile names one:
// S3-compatible servers other than AWS accept any, and AWS names a bucket's own region in its
// answer, which the next attempt uses.
const defaultRegion = "us-east-1"

// S3 is a bucket of any S3-compatible store, configured as the AWS command line is (awsConfig).
// With an endpoint set (MinIO, SeaweedFS, R2), requests use path-style addresses; on AWS,
// virtual-hosted ones. Requests are signed with Signature Version 4 over the payload's SHA-256,
// so that the server refuses a body that is not the one sent. The client is ctxc's own, a few
// hundred lines, where an SDK would cost every ctxc command its start time.
type S3 struct {
	url    URL
	cfg    awsConfig
	client *http.Client
	now    func() time.Time

	mu     sync.Mutex
	region string      // the bucket's region, once AWS named another
	creds  credentials // fetched once
	got    time.Time
}

// OpenS3 configures a client for u from the environment and the AWS files; it sends no request
// (Check does).
func OpenS3(ctx context.Context, u URL) (*S3, error) {
	return openS3(u, os.Getenv)
}

func openS3(u URL, env func(string) string) (*S3, error) {
	cfg, err := loadAWSConfig(env)
	if err != nil {
		return nil, &StoreError{Store: u.String(), Kind: Denied, Err: err}
	}
	tlsConfig, err := trusting(cfg.CABundle)
	if err != nil {
		return nil, &StoreError{Store: u.String(), Kind: Failed, Err: err}
	}
	transport := &http.Transport{
		TLSClientConfig:       tlsConfig,
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 2 * time.Minute,
		MaxIdleConnsPerHost:   16,
		IdleConnTimeout:       90 * time.Second,
	}
	return &S3{url: u, cfg: cfg, client: &http.Client{Transport: transport}, now: time.Now, region: cfg.Region}, nil
}

// trusting is the TLS configuration that trusts a CA bundle's certificates ("": the system's).
func trusting(bundle string) (*tls.Config, error) {
	if bundle == "" {
		return nil, nil
	}
	pem, err := os.ReadFile(bundle)
	if err != nil {
		return nil, fmt.Errorf("AWS_CA_BUNDLE: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("AWS_CA_BUNDLE: %s holds no PEM certificate", bundle)
	}
	return &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, nil
}

func (s *S3) String() string { return s.url.String() }

// Endpoint is the endpoint the client was configured with ("" for AWS's own).
func (s *S3) Endpoint() string { return s.cfg.Endpoint }

// Check asks for the bucket: it must exist and the credentials must be accepted.
func (s *S3) Check(ctx context.Context) error {
	resp, err := s.do(ctx, request{method: http.MethodHead})
	if err != nil {
		return err
	}
	resp.Body.Close()
	return nil
}

// List returns every object under the prefix, a page at a time (ListObjectsV2).
func (s *S3) List(ctx context.Context) ([]Object, error) {
	var out []Object
	token := ""
	for {
		q := url.Values{"list-type": {"2"}, "prefix": {s.url.Prefix}}
		if token != "" {
			q.Set("continuation-token", token)
		}
		resp, err := s.do(ctx, request{method: http.MethodGet, query: q})
		if err != nil {
			return nil, err
		}
		var page struct {
			Contents []struct {
				Key  string
				Size int64
				ETag string
			}
			IsTruncated           bool
			NextContinuationToken string
		}
		err = xml.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if err != nil {
			return nil, s.failed("", fmt.Errorf("a listing that is not S3's XML: %w", err))
		}
		for _, o := range page.Contents {
			out = append(out, Object{Key: strings.TrimPrefix(o.Key, s.url.Prefix), Size: o.Size, ETag: o.ETag})
		}
		if !page.IsTruncated || page.NextContinuationToken == "" {
			return out, nil
		}
		token = page.NextContinuationToken
	}
}

// Stat returns an object's size, ETag and metadata (x-amz-meta-*, keys lowercased).
func (s *S3) Stat(ctx context.Context, key string) (Object, bool, error) {
	resp, err := s.do(ctx, request{method: http.MethodHead, key: key})
	if err != nil {
		var se *StoreError
		if errors.As(err, &se) && se.status == http.StatusNotFound {
			return Object{}, false, nil
		}
		return Object{}, false, err
	}
	resp.Body.Close()
	meta := map[string]string{}
	for k, v := range resp.Header {
		if name, ok := strings.CutPrefix(strings.ToLower(k), "x-amz-meta-"); ok && len(v) > 0 {
			meta[name] = v[0]
		}
	}
	return Object{Key: key, Size: resp.ContentLength, ETag: resp.Header.Get("ETag"), Meta: meta}, true, nil
}

// Put writes the object with one PutObject: S3 makes it visible only once it is whole, and it
// keeps it only when the body's SHA-256 is the one signed.
func (s *S3) Put(ctx context.Context, key string, body io.ReadSeeker, size int64, meta map[string]string) (string, error) {
	if size > maxPut {
		return "", s.failed(key, fmt.Errorf("%d bytes: S3 takes at most 5 GiB in one PutObject, and ctxc uploads an object whole", size))
	}
	sum, err := hashBody(body, size)
	if err != nil {
		return "", s.failed(key, err)
	}
	header := http.Header{}
	for k, v := range meta {
		header.Set("X-Amz-Meta-"+k, v)
	}
	resp, err := s.do(ctx, request{method: http.MethodPut, key: key, header: header, body: body, size: size, sum: sum})
	if err != nil {
		return "", err
	}
	resp.Body.Close()
	return resp.Header.Get("ETag"), nil
}

// Get copies the object's bytes to w.
func (s *S3) Get(ctx context.Context, key string, w io.Writer) error {
	resp, err := s.do(ctx, request{method: http.MethodGet, key: key})
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(w, resp.Body); err != nil {
		return s.failed(key, err)
	}
	return nil
}

// maxPut is the most one PutObject takes (S3's limit); an archived session past it (some 25 GB of
// session text) is refused before it is read, rather than by the server after it was sent.
var maxPut int64 = 5 << 30

// hashBody is the hex SHA-256 of size bytes of body, read from its start; body is left at its
// start.
func hashBody(body io.ReadSeeker, size int64) (string, error) {
	if _, err := body.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(body, size))
	if err != nil {
		return "", err
	}
	if n != size {
		return "", fmt.Errorf("the body has %d bytes, not %d", n, size)
	}
	if _, err := body.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// request is one S3 call: the object key ("" for the bucket), its query, extra headers, and a
// body of size bytes whose SHA-256 is sum.
type request struct {
	method string
	key    string
	query  url.Values
	header http.Header
	body   io.ReadSeeker
	size   int64
	sum    string
}

// do sends r, again after a network error, a throttle or a server error (up to MaxAttempts, with
// a growing pause), and once more in the region AWS names for the bucket; an answer other than
// 2xx is a StoreError.
func (s *S3) do(ctx context.Context, r request) (*http.Response, error) {
	var last error
	redirected := false
	for attempt := 1; ; attempt++ {
		resp, err := s.send(ctx, r)
		if err == nil && resp.StatusCode/100 == 2 {
			return resp, nil
		}
		if err == nil {
			err = s.refusal(r, resp)
			if region := resp.Header.Get("X-Amz-Bucket-Region"); region != "" && !redirected && s.cfg.Endpoint == "" && region != s.currentRegion() {
				s.setRegion(region)
				redirected = true
				attempt--
				last = err
				continue
			}
		}
		if errors.Is(err, context.Canceled) || ctx.Err() != nil {
			return nil, ctx.Err()
		}
		last = err
		if attempt >= s.cfg.MaxAttempts || !retryable(err) {
			return nil, last
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(attempt*attempt) * 200 * time.Millisecond):
		}
	}
}

// send signs and sends one attempt of r.
func (s *S3) send(ctx context.Context, r request) (*http.Response, error) {
	creds, err := s.credentials(ctx)
	if err != nil {
		return nil, &StoreError{Store: s.String(), Kind: Denied, Err: err}
	}
	var body io.Reader
	sum := emptySHA256
	if r.body != nil {
		if _, err := r.body.Seek(0, io.SeekStart); err != nil {
			return nil, s.failed(r.key, err)
		}
		body, sum = io.NopCloser(io.LimitReader(r.body, r.size)), r.sum
	}
	req, err := http.NewRequestWithContext(ctx, r.method, s.address(r.key, r.query), body)
	if err != nil {
		return nil, s.failed(r.key, err)
	}
	if r.body != nil {
		req.ContentLength = r.size
		if r.size == 0 {
			req.Body = http.NoBody
		}
	}
	for k, v := range r.header {
		req.Header[k] = v
	}
	sign(req, creds, s.currentRegion(), sum, s.now())
	resp, err := s.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &StoreError{Store: s.String(), Kind: Unreachable, Err: shortNetError(err)}
	}
	return resp, nil
}

// address is the URL of key (the bucket when "") with its query: path-style under a configured
// endpoint, virtual-hosted on AWS (path-style there too for a bucket with dots, which a
// certificate for *.s3.amazonaws.com does not cover).
func (s *S3) address(key string, q url.Values) string {
	path := "/" + s.url.Prefix + key
	if key == "" {
		path = "/"
	}
	var u url.URL
	switch {
	case s.cfg.Endpoint != "":
		base, err := url.Parse(s.cfg.Endpoint)
		if err != nil || base.Host == "" {
			base = &url.URL{Scheme: "https", Host: s.cfg.Endpoint}
		}
		u = url.URL{Scheme: base.Scheme, Host: base.Host, Path: strings.TrimRight(base.Path, "/") + "/" + s.url.Bucket + path}
	case strings.Contains(s.url.Bucket, "."):
		u = url.URL{Scheme: "https", Host: "s3." + s.currentRegion() + ".amazonaws.com", Path: "/" + s.url.Bucket + path}
	default:
		u = url.URL{Scheme: "https", Host: s.url.Bucket + ".s3." + s.currentRegion() + ".amazonaws.com", Path: path}
	}
	if key == "" && s.cfg.Endpoint != "" {
		u.Path = strings.TrimSuffix(u.Path, "/")
	}
	u.RawPath = uriEncode(u.Path, false)
	u.RawQuery = canonicalQuery(q)
	return u.String()
}

// credentials are fetched once a process (temporary ones again after ten minutes).
func (s *S3) credentials(ctx context.Context) (credentials, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.creds.AccessKey != "" && (s.creds.Token == "" || time.Since(s.got) < 10*time.Minute) {
		return s.creds, nil
	}
	c, err := s.cfg.creds(ctx)
	if err != nil {
		return credentials{}, err
	}
	s.creds, s.got = c, time.Now()
	return c, nil
}

func (s *S3) currentRegion() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.region
}

func (s *S3) setRegion(r string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.region = r
}

// refusal reads an answer other than 2xx into a StoreError: S3's XML error (Code, Message)
// when it sent one (a HEAD has none: its status says it).
func (s *S3) refusal(r request, resp *http.Response) error {
	defer resp.Body.Close()
	var e struct {
		Code, Message string
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if len(body) > 0 {
		_ = xml.Unmarshal(body, &e)
	}
	err := &StoreError{Store: s.String(), Kind: kindOf(e.Code, resp.StatusCode, r.key), status: resp.StatusCode, code: e.Code}
	switch {
	case e.Code != "":
		err.Err = fmt.Errorf("%s: %s", e.Code, e.Message)
	default:
		err.Err = errors.New(resp.Status)
	}
	return err
}

// kindOf tells a missing bucket and refused credentials apart from other refusals.
func kindOf(code string, status int, key string) string {
	switch code {
	case "NoSuchBucket":
		return NoBucket
	case "AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch", "Forbidden", "InvalidToken", "ExpiredToken":
		return Denied
	}
	switch status {
	case http.StatusNotFound:
		if key == "" {
			return NoBucket // a HEAD of the bucket answers a bare 404
		}
	case http.StatusForbidden, http.StatusUnauthorized:
		return Denied
	}
	return Failed
}

// retryable: a network error, a throttle or a server error may pass on another attempt.
func retryable(err error) bool {
	var se *StoreError
	if !errors.As(err, &se) {
		return false
	}
	if se.Kind == Unreachable {
		return true
	}
	switch se.code {
	case "SlowDown", "InternalError", "RequestTimeout", "ServiceUnavailable", "RequestTimeTooSkewed":
		return true
	}
	return se.status == http.StatusTooManyRequests || se.status >= 500
}

// failed is a local failure of a request about key.
func (s *S3) failed(key string, err error) error {
	return &StoreError{Store: s.String() + key, Kind: Failed, Err: err}
}

// shortNetError drops net/http's wrapping when the network's error says it all.
func shortNetError(err error) error {
	var op *net.OpError
	if errors.As(err, &op) {
		return op
	}
	return err
}
