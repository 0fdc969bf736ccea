package objstore

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"
)

// emptySHA256 is the SHA-256 of no bytes: the payload hash of a request without a body.
const emptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// credentials sign requests; Token is set for temporary credentials only.
type credentials struct {
	AccessKey, SecretKey, Token string
}

// sign adds AWS Signature Version 4 headers to req for service "s3" in region: x-amz-date,
// x-amz-content-sha256 (payloadHash, the hex SHA-256 of the body), the session token when
// there is one, and Authorization over the host and every x-amz-* header.
func sign(req *http.Request, c credentials, region, payloadHash string, now time.Time) {
	now = now.UTC()
	stamp := now.Format("20060102T150405Z")
	day := stamp[:8]
	req.Header.Set("X-Amz-Date", stamp)
	req.Header.Set("X-Amz-Content-Sha256", payloadHash)
	if c.Token != "" {
		req.Header.Set("X-Amz-Security-Token", c.Token)
	}
	names, canonHeaders := canonicalHeaders(req)
	canon := strings.Join([]string{
		req.Method,
		uriEncode(req.URL.EscapedPath(), false),
		canonicalQuery(req.URL.Query()),
		canonHeaders,
		names,
		payloadHash,
	}, "\n")
	scope := day + "/" + region + "/s3/aws4_request"
	toSign := "AWS4-HMAC-SHA256\n" + stamp + "\n" + scope + "\n" + hexSHA256([]byte(canon))
	key := hmacSHA256([]byte("AWS4"+c.SecretKey), day)
	for _, part := range []string{region, "s3", "aws4_request"} {
		key = hmacSHA256(key, part)
	}
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential="+c.AccessKey+"/"+scope+
		",SignedHeaders="+names+",Signature="+hex.EncodeToString(hmacSHA256(key, toSign)))
}

// canonicalHeaders lists the signed headers (host, range, date, content-type, every x-amz-*),
// lowercased and sorted: their names joined by ";" and their "name:value\n" lines.
func canonicalHeaders(req *http.Request) (names, lines string) {
	values := map[string]string{"host": req.Host}
	if req.Host == "" {
		values["host"] = req.URL.Host
	}
	for k, v := range req.Header {
		lk := strings.ToLower(k)
		if strings.HasPrefix(lk, "x-amz-") || lk == "range" || lk == "date" || lk == "content-type" || lk == "content-md5" {
			values[lk] = strings.Join(trimAll(v), ",")
		}
	}
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k + ":" + values[k] + "\n")
	}
	return strings.Join(keys, ";"), b.String()
}

// trimAll trims each value and folds its inner runs of spaces to one, as SigV4 asks.
func trimAll(vs []string) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = strings.Join(strings.Fields(v), " ")
	}
	return out
}

// canonicalQuery is the query sorted by name then value, each part URI-encoded.
func canonicalQuery(q url.Values) string {
	var pairs []string
	for k, vs := range q {
		for _, v := range vs {
			pairs = append(pairs, uriEncode(k, true)+"="+uriEncode(v, true))
		}
	}
	sort.Strings(pairs)
	return strings.Join(pairs, "&")
}

// uriEncode encodes s as SigV4 asks: every byte but A-Z a-z 0-9 - _ . ~ as %XX (uppercase);
// "/" too when slash is set. An escaped path is decoded first, so that it is encoded once.
func uriEncode(s string, slash bool) string {
	if !slash {
		if u, err := url.PathUnescape(s); err == nil {
			s = u
		}
	}
	const hexdig = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '-', c == '_', c == '.', c == '~':
			b.WriteByte(c)
		case c == '/' && !slash:
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hexdig[c>>4])
			b.WriteByte(hexdig[c&15])
		}
	}
	return b.String()
}

func hmacSHA256(key []byte, data string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(data))
	return h.Sum(nil)
}

func hexSHA256(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
