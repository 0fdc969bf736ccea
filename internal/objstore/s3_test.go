package objstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// fakeS3 opens a client for s3://bucket/pre/ at an httptest server answering with h.
func fakeS3(t *testing.T, h http.HandlerFunc, env map[string]string) *S3 {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	home := t.TempDir()
	s, err := openS3(URL{Bucket: "bucket", Prefix: "pre/"}, func(k string) string {
		switch k {
		case "HOME":
			return home
		case "AWS_ENDPOINT_URL":
			return srv.URL
		case "AWS_ACCESS_KEY_ID":
			return "k"
		case "AWS_SECRET_ACCESS_KEY":
			return "s"
		}
		return env[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestS3Refusals: each answer of a server becomes the StoreError kind the exit codes follow,
// carrying S3's own code and message.
func TestS3Refusals(t *testing.T) {
	cases := []struct {
		name   string
		status int
		body   string
		call   func(*S3) error
		kind   string
		says   string
	}{
		{"bucket missing (HEAD)", 404, "", func(s *S3) error { return s.Check(context.Background()) }, NoBucket, "404"},
		{"bucket missing (XML)", 404, "<Error><Code>NoSuchBucket</Code><Message>The specified bucket does not exist</Message></Error>",
			func(s *S3) error { _, err := s.List(context.Background()); return err }, NoBucket, "NoSuchBucket: The specified bucket"},
		{"wrong secret", 403, "<Error><Code>SignatureDoesNotMatch</Code><Message>no</Message></Error>",
			func(s *S3) error { _, err := s.List(context.Background()); return err }, Denied, "SignatureDoesNotMatch"},
		{"forbidden HEAD", 403, "", func(s *S3) error { return s.Check(context.Background()) }, Denied, "403"},
		{"object missing on GET", 404, "<Error><Code>NoSuchKey</Code><Message>gone</Message></Error>",
			func(s *S3) error { return s.Get(context.Background(), "x", io.Discard) }, Failed, "NoSuchKey"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := fakeS3(t, func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(c.status)
				io.WriteString(w, c.body)
			}, nil)
			err := c.call(s)
			var se *StoreError
			if !errors.As(err, &se) || se.Kind != c.kind || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("err %v, want kind %s saying %q", err, c.kind, c.says)
			}
		})
	}
}

// TestS3RetriesServerErrors: a 503 (SlowDown) and a 500 are tried again, up to AWS_MAX_ATTEMPTS,
// with the body sent whole each time; a 4xx is not.
func TestS3RetriesServerErrors(t *testing.T) {
	var calls atomic.Int32
	body := []byte("the archived session")
	s := fakeS3(t, func(w http.ResponseWriter, r *http.Request) {
		got, _ := io.ReadAll(r.Body)
		n := calls.Add(1)
		if !bytes.Equal(got, body) {
			w.WriteHeader(400)
			fmt.Fprintf(w, "<Error><Code>BadBody</Code><Message>%q</Message></Error>", got)
			return
		}
		switch n {
		case 1:
			w.WriteHeader(503)
			io.WriteString(w, "<Error><Code>SlowDown</Code><Message>slow</Message></Error>")
		case 2:
			w.WriteHeader(500)
		default:
			w.Header().Set("ETag", `"abc"`)
		}
	}, map[string]string{"AWS_MAX_ATTEMPTS": "3"})
	etag, err := s.Put(context.Background(), "k", bytes.NewReader(body), int64(len(body)), nil)
	if err != nil || etag != `"abc"` || calls.Load() != 3 {
		t.Fatalf("etag %q err %v after %d calls", etag, err, calls.Load())
	}
	calls.Store(0)
	s = fakeS3(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.WriteHeader(403)
	}, nil)
	if err := s.Check(context.Background()); err == nil || calls.Load() != 1 {
		t.Fatalf("a 403 was tried %d times (err %v)", calls.Load(), err)
	}
}

// TestS3RequestsAreSigned: what the server receives: a path-style address under the endpoint,
// the payload's SHA-256 as signed, metadata as x-amz-meta-* (read back lowercased by Stat), and
// a listing followed across pages.
func TestS3RequestsAreSigned(t *testing.T) {
	body := []byte("zst bytes")
	sum := sha256.Sum256(body)
	var seen []string
	s := fakeS3(t, func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.Method+" "+r.URL.RequestURI())
		if !strings.HasPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256 Credential=k/") {
			w.WriteHeader(403)
			return
		}
		switch {
		case r.Method == http.MethodPut:
			if r.Header.Get("X-Amz-Content-Sha256") != hex.EncodeToString(sum[:]) || r.Header.Get("X-Amz-Meta-Ctxc-Sha256") != "v" {
				w.WriteHeader(400)
				return
			}
		case r.Method == http.MethodHead:
			w.Header().Set("X-Amz-Meta-Ctxc-Sha256", "v")
			w.Header().Set("Content-Length", "9")
		case r.URL.Query().Get("continuation-token") == "":
			io.WriteString(w, `<ListBucketResult><Contents><Key>pre/a b</Key><Size>3</Size><ETag>"e1"</ETag></Contents><IsTruncated>true</IsTruncated><NextContinuationToken>t/2+</NextContinuationToken></ListBucketResult>`)
		default:
			io.WriteString(w, `<ListBucketResult><Contents><Key>pre/c</Key><Size>4</Size></Contents><IsTruncated>false</IsTruncated></ListBucketResult>`)
		}
	}, nil)
	ctx := context.Background()
	if _, err := s.Put(ctx, "dir/a b.zst", bytes.NewReader(body), int64(len(body)), map[string]string{"ctxc-sha256": "v"}); err != nil {
		t.Fatal(err)
	}
	obj, ok, err := s.Stat(ctx, "dir/a b.zst")
	if err != nil || !ok || obj.Meta["ctxc-sha256"] != "v" || obj.Size != 9 {
		t.Fatalf("stat %+v %v %v", obj, ok, err)
	}
	objs, err := s.List(ctx)
	if err != nil || len(objs) != 2 || objs[0].Key != "a b" || objs[1].Key != "c" || objs[0].Size != 3 {
		t.Fatalf("list %+v %v", objs, err)
	}
	want := []string{"PUT /bucket/pre/dir/a%20b.zst", "HEAD /bucket/pre/dir/a%20b.zst",
		"GET /bucket?list-type=2&prefix=pre%2F", "GET /bucket?continuation-token=t%2F2%2B&list-type=2&prefix=pre%2F"}
	if strings.Join(seen, "\n") != strings.Join(want, "\n") {
		t.Errorf("requests:\n%s\nwant:\n%s", strings.Join(seen, "\n"), strings.Join(want, "\n"))
	}
}

// TestS3PutTooLarge: an object past S3's limit for one PutObject is refused before anything is
// sent, saying why.
func TestS3PutTooLarge(t *testing.T) {
	var calls atomic.Int32
	s := fakeS3(t, func(w http.ResponseWriter, r *http.Request) { calls.Add(1) }, nil)
	old := maxPut
	maxPut = 8
	defer func() { maxPut = old }()
	_, err := s.Put(context.Background(), "k", bytes.NewReader([]byte("nine bytes")), 10, nil)
	if err == nil || !strings.Contains(err.Error(), "at most 5 GiB") || calls.Load() != 0 {
		t.Fatalf("err %v after %d requests", err, calls.Load())
	}
}
