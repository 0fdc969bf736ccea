package redact

import (
	"encoding/json"
	"strings"
	"testing"
)

// Planted secrets of every kind, as they appear in sessions. They are made up: none is a real key.
var planted = []struct {
	kind, text, secret string
}{
	{"openai-key", "export OPENAI_API_KEY=sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z now", "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"},
	{"openai-key", "key sk-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAB12", "sk-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAB12"},
	{"anthropic-key", "ANTHROPIC_API_KEY=sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe-AAAA", "sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe-AAAA"},
	{"aws-access-key", "aws_access_key_id = AKIAQ3EGRT5XWZ7LMN2P", "AKIAQ3EGRT5XWZ7LMN2P"},
	{"aws-secret-key", "aws_secret_access_key = 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", "q8Fz3Lm9Xv2Rt7Yp4Wn6Jc1Hb5Kd0Gs8Ae3Ui7Oo"},
	{"github-token", "git clone https://ghp_R4nd0mT0k3nV4lu3F0rT3st1ngOnly00AbCd@github.com/x/y", "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngOnly00AbCd"},
	{"github-token", "GH_TOKEN=github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"},
	{"slack-token", "SLACK_BOT_TOKEN=xoxb-1234567890-0987654321-AbCdEfGhIjKl", "xoxb-1234567890-0987654321-AbCdEfGhIjKl"},
	{"google-api-key", "maps?key=AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q&x", "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"},
	{"bearer-token", "curl -H 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl'", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl"},
	{"private-key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU=\n-----END OPENSSH PRIVATE KEY-----", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmU="},
	{"url-password", "DATABASE_URL=postgres://app:Hunter2Secret@db.internal:5432/prod", "Hunter2Secret"},
	{"connection-string", "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=dGhpc2lzbm90YXJlYWxrZXk=;EndpointSuffix=core", "dGhpc2lzbm90YXJlYWxrZXk="},
	{"password", "mysql -u root --password=Tr0ub4dor3", "Tr0ub4dor3"},
	{"password", `config: {"password": "c0rrectH0rse"}`, "c0rrectH0rse"},
}

func TestStringReplacesEveryKind(t *testing.T) {
	for _, p := range planted {
		t.Run(p.kind, func(t *testing.T) {
			got, n := String(p.text)
			if n == 0 || strings.Contains(got, p.secret) {
				t.Fatalf("String(%q) = %q (%d): the secret is left", p.text, got, n)
			}
			if !strings.Contains(got, "[REDACTED:"+p.kind+":") {
				t.Fatalf("String(%q) = %q: no %s placeholder", p.text, got, p.kind)
			}
			if again, n := String(got); again != got || n != 0 {
				t.Fatalf("redacting again changed %q to %q", got, again)
			}
		})
	}
}

func TestStringLeavesOrdinaryText(t *testing.T) {
	for _, s := range []string{
		"",
		"the skeleton of sk-learn is fine", // sk- followed by too little
		"run go test ./... and read the password policy", // no assignment
		"https://example.com/path?q=1",
		"Bearer of bad news",
		"AKIA is a prefix",
		"see [REDACTED:openai-key:abcdef] above",
	} {
		if got, n := String(s); got != s || n != 0 {
			t.Errorf("String(%q) = %q (%d)", s, got, n)
		}
	}
}

func TestPlaceholderIsStableAndShort(t *testing.T) {
	a, b := Placeholder("openai-key", "sk-x"), Placeholder("openai-key", "sk-x")
	if a != b || a == Placeholder("openai-key", "sk-y") {
		t.Fatalf("placeholders %q %q", a, b)
	}
	if len(a) != len("[REDACTED:openai-key:]")+hashLen {
		t.Fatalf("placeholder %q", a)
	}
}

func TestJSONLineRedactsStringValuesOnly(t *testing.T) {
	args, _ := json.Marshal(map[string]string{"command": "export AWS_ACCESS_KEY_ID=AKIAQ3EGRT5XWZ7LMN2P\nexport X=1"})
	line, _ := json.Marshal(map[string]any{
		"type":    "message",
		"n":       12.50,
		"text":    "use sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe-AAAA please \u00e9",
		"args":    string(args),
		"nothing": "plain",
	})
	got, n := JSONLine(line)
	if n != 2 {
		t.Fatalf("%d secrets replaced in %s", n, got)
	}
	var v map[string]any
	if err := json.Unmarshal(got, &v); err != nil {
		t.Fatalf("not JSON any more: %v\n%s", err, got)
	}
	if strings.Contains(string(got), "AKIAQ3EGRT5XWZ7LMN2P") || strings.Contains(string(got), "sk-ant-") {
		t.Fatalf("secret left: %s", got)
	}
	var inner map[string]string
	if err := json.Unmarshal([]byte(v["args"].(string)), &inner); err != nil || !strings.HasSuffix(inner["command"], "\nexport X=1") {
		t.Fatalf("nested JSON broken: %v %q", err, v["args"])
	}
	if v["n"] != 12.5 || v["nothing"] != "plain" || !strings.HasSuffix(v["text"].(string), " please \u00e9") {
		t.Fatalf("other values changed: %v", v)
	}
	plain := []byte(`{"a":"no secret here","b":[1,2,"x\"y"]}`)
	if got, n := JSONLine(plain); n != 0 || string(got) != string(plain) {
		t.Fatalf("a line without secrets changed: %s", got)
	}
}
