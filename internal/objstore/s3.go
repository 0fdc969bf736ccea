package objstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// defaultRegion is the region asked for when neither the environment nor a profile names one:
// S3-compatible servers other than AWS accept any, and AWS redirects a bucket's requests.
const defaultRegion = "us-east-1"

// S3 is a bucket of any S3-compatible store, configured as the AWS command line is: the
// environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION,
// AWS_PROFILE, AWS_ENDPOINT_URL, AWS_ENDPOINT_URL_S3), then ~/.aws/config and ~/.aws/credentials.
// With an endpoint set (MinIO, SeaweedFS, R2), requests use path-style addresses.
type S3 struct {
	url    URL
	client *s3.Client
}

// OpenS3 configures a client for u; it sends no request (Check does).
func OpenS3(ctx context.Context, u URL) (*S3, error) {
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, &StoreError{Store: u.String(), Kind: Denied, Err: err}
	}
	if cfg.Region == "" {
		cfg.Region = defaultRegion
	}
	client := s3.NewFromConfig(cfg, func(o *s3.Options) {
		if o.BaseEndpoint != nil {
			o.UsePathStyle = true
		}
	})
	return &S3{url: u, client: client}, nil
}

func (s *S3) String() string { return s.url.String() }

// Check asks for the bucket: it must exist and the credentials must be accepted.
func (s *S3) Check(ctx context.Context) error {
	_, err := s.client.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: &s.url.Bucket})
	return s.wrap(err)
}

// List returns every object under the prefix, a page at a time.
func (s *S3) List(ctx context.Context) ([]Object, error) {
	var out []Object
	p := s3.NewListObjectsV2Paginator(s.client, &s3.ListObjectsV2Input{Bucket: &s.url.Bucket, Prefix: aws.String(s.url.Prefix)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, s.wrap(err)
		}
		for _, o := range page.Contents {
			key := strings.TrimPrefix(aws.ToString(o.Key), s.url.Prefix)
			out = append(out, Object{Key: key, Size: aws.ToInt64(o.Size), ETag: aws.ToString(o.ETag)})
		}
	}
	return out, nil
}

// Stat returns an object's size, ETag and metadata.
func (s *S3) Stat(ctx context.Context, key string) (Object, bool, error) {
	h, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &s.url.Bucket, Key: aws.String(s.url.Prefix + key)})
	if err != nil {
		if statusOf(err) == http.StatusNotFound {
			return Object{}, false, nil
		}
		return Object{}, false, s.wrap(err)
	}
	return Object{Key: key, Size: aws.ToInt64(h.ContentLength), ETag: aws.ToString(h.ETag), Meta: h.Metadata}, true, nil
}

// Put writes the object with one PutObject: S3 makes it visible only once it is whole, and the
// SDK sends a checksum of the body that the server checks before it keeps it.
func (s *S3) Put(ctx context.Context, key string, body io.ReadSeeker, size int64, meta map[string]string) (string, error) {
	out, err := s.client.PutObject(ctx, &s3.PutObjectInput{
		Bucket:        &s.url.Bucket,
		Key:           aws.String(s.url.Prefix + key),
		Body:          body,
		ContentLength: aws.Int64(size),
		Metadata:      meta,
	})
	if err != nil {
		return "", s.wrap(err)
	}
	return aws.ToString(out.ETag), nil
}

// Get copies the object's bytes to w.
func (s *S3) Get(ctx context.Context, key string, w io.Writer) error {
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &s.url.Bucket, Key: aws.String(s.url.Prefix + key)})
	if err != nil {
		return s.wrap(err)
	}
	defer out.Body.Close()
	if _, err := io.Copy(w, out.Body); err != nil {
		return &StoreError{Store: s.String() + key, Kind: Failed, Err: err}
	}
	return nil
}

// wrap gives an SDK error its kind.
func (s *S3) wrap(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	return &StoreError{Store: s.String(), Kind: kindOf(err), Err: shortError(err)}
}

// kindOf tells a missing bucket, refused credentials and an endpoint that does not answer apart.
func kindOf(err error) string {
	var api smithy.APIError
	if errors.As(err, &api) {
		switch api.ErrorCode() {
		case "NoSuchBucket":
			return NoBucket
		case "AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch", "Forbidden", "InvalidToken", "ExpiredToken":
			return Denied
		}
	}
	switch statusOf(err) {
	case http.StatusNotFound:
		return NoBucket // HeadBucket answers a bare 404
	case http.StatusForbidden, http.StatusUnauthorized:
		return Denied
	}
	var send *smithyhttp.RequestSendError
	var nerr net.Error
	if errors.As(err, &send) || errors.As(err, &nerr) || errors.Is(err, os.ErrDeadlineExceeded) {
		return Unreachable
	}
	if strings.Contains(err.Error(), "failed to retrieve credentials") {
		return Denied
	}
	return Failed
}

// statusOf is the HTTP status of an SDK error, 0 when no response came.
func statusOf(err error) int {
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}

// shortError drops the SDK's operation and retry wrapping when the API's error or the network's
// says it all.
func shortError(err error) error {
	var api smithy.APIError
	if errors.As(err, &api) {
		return fmt.Errorf("%s: %s", api.ErrorCode(), api.ErrorMessage())
	}
	var op *net.OpError
	if errors.As(err, &op) {
		return op
	}
	return err
}

// Endpoint is the endpoint the client was configured with ("" for AWS's own).
func (s *S3) Endpoint() string { return aws.ToString(s.client.Options().BaseEndpoint) }
