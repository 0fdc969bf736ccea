package objstore

import (
	"net/http"
	"testing"
	"time"
)

// TestSignMatchesAWSExamples: the signatures of the examples in Amazon S3's documentation of
// Signature Version 4 (a GET of an object with a range, a PUT with a payload, a listing with a
// query), letter for letter.
func TestSignMatchesAWSExamples(t *testing.T) {
	creds := credentials{AccessKey: "AKIAIOSFODNN7EXAMPLE", SecretKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}
	when := time.Date(2013, 5, 24, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name, method, url string
		headers           map[string]string
		payload           string
		wantSigned        string
		wantSignature     string
	}{
		{
			name: "get an object", method: "GET", url: "https://examplebucket.s3.amazonaws.com/test.txt",
			headers: map[string]string{"Range": "bytes=0-9"}, payload: emptySHA256,
			wantSigned:    "host;range;x-amz-content-sha256;x-amz-date",
			wantSignature: "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41",
		},
		{
			name: "put an object", method: "PUT", url: "https://examplebucket.s3.amazonaws.com/test$file.text",
			headers:       map[string]string{"Date": "Fri, 24 May 2013 00:00:00 GMT", "X-Amz-Storage-Class": "REDUCED_REDUNDANCY"},
			payload:       hexSHA256([]byte("Welcome to Amazon S3.")),
			wantSigned:    "date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class",
			wantSignature: "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd",
		},
		{
			name: "list objects", method: "GET", url: "https://examplebucket.s3.amazonaws.com/?max-keys=2&prefix=J",
			payload:       emptySHA256,
			wantSigned:    "host;x-amz-content-sha256;x-amz-date",
			wantSignature: "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, err := http.NewRequest(c.method, c.url, nil)
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range c.headers {
				req.Header.Set(k, v)
			}
			sign(req, creds, "us-east-1", c.payload, when)
			want := "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,SignedHeaders=" +
				c.wantSigned + ",Signature=" + c.wantSignature
			if got := req.Header.Get("Authorization"); got != want {
				t.Errorf("Authorization:\n got %s\nwant %s", got, want)
			}
		})
	}
}

// TestURIEncode: the encodings SigV4 asks for, a slash kept in a path and escaped in a query.
func TestURIEncode(t *testing.T) {
	cases := []struct {
		in    string
		slash bool
		want  string
	}{
		{"/a b/c~d", false, "/a%20b/c~d"},
		{"/test$file.text", false, "/test%24file.text"},
		{"/%E2%82%AC", false, "/%E2%82%AC"},
		{"a/b c", true, "a%2Fb%20c"},
		{"sessions/2026-11-28/x.jsonl.zst", true, "sessions%2F2026-11-28%2Fx.jsonl.zst"},
	}
	for _, c := range cases {
		if got := uriEncode(c.in, c.slash); got != c.want {
			t.Errorf("uriEncode(%q, %v) = %q, want %q", c.in, c.slash, got, c.want)
		}
	}
}
