package objstore

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadAWSConfig: the environment wins over the profile's files, the credentials file over
// the config file, a named profile's section is read ("[profile NAME]" in config, "[NAME]" in
// credentials), nested blocks are skipped, and a credential_process's JSON is read.
func TestLoadAWSConfig(t *testing.T) {
	home := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(home, ".aws"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, ".aws", name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("config", `[default]
region = eu-west-3
endpoint_url = http://default.example:9000

[profile team]
region = ap-south-1
s3 =
  endpoint_url = http://nested.example
endpoint_url = http://team.example:8333/
max_attempts = 5
# comment
[profile proc]
credential_process = printf '{"Version":1,"AccessKeyId":"PK","SecretAccessKey":"PS","SessionToken":"PT"}'
`)
	write("credentials", `[default]
aws_access_key_id = DK
aws_secret_access_key = DS
[team]
aws_access_key_id=TK
aws_secret_access_key=TS
aws_session_token=TT
`)
	cases := []struct {
		name     string
		env      map[string]string
		region   string
		endpoint string
		attempts int
		creds    credentials
		err      string
	}{
		{name: "default profile", region: "eu-west-3", endpoint: "http://default.example:9000", attempts: 3,
			creds: credentials{"DK", "DS", ""}},
		{name: "environment first", env: map[string]string{"AWS_REGION": "us-west-2", "AWS_ENDPOINT_URL": "http://env.example",
			"AWS_ACCESS_KEY_ID": "EK", "AWS_SECRET_ACCESS_KEY": "ES", "AWS_SESSION_TOKEN": "ET", "AWS_MAX_ATTEMPTS": "1"},
			region: "us-west-2", endpoint: "http://env.example", attempts: 1, creds: credentials{"EK", "ES", "ET"}},
		{name: "the S3 endpoint over the general one", env: map[string]string{"AWS_ENDPOINT_URL": "http://env.example", "AWS_ENDPOINT_URL_S3": "http://s3.example"},
			region: "eu-west-3", endpoint: "http://s3.example", attempts: 3, creds: credentials{"DK", "DS", ""}},
		{name: "named profile", env: map[string]string{"AWS_PROFILE": "team"},
			region: "ap-south-1", endpoint: "http://team.example:8333", attempts: 5, creds: credentials{"TK", "TS", "TT"}},
		{name: "credential process", env: map[string]string{"AWS_PROFILE": "proc"},
			region: defaultRegion, attempts: 3, creds: credentials{"PK", "PS", "PT"}},
		{name: "missing profile", env: map[string]string{"AWS_PROFILE": "nope"}, err: "AWS_PROFILE=nope: no such profile"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := func(k string) string {
				if k == "HOME" {
					return home
				}
				return c.env[k]
			}
			cfg, err := loadAWSConfig(env)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Region != c.region || cfg.Endpoint != c.endpoint || cfg.MaxAttempts != c.attempts {
				t.Errorf("region %q endpoint %q attempts %d, want %q %q %d", cfg.Region, cfg.Endpoint, cfg.MaxAttempts, c.region, c.endpoint, c.attempts)
			}
			got, err := cfg.creds(context.Background())
			if err != nil || got != c.creds {
				t.Errorf("credentials %+v (%v), want %+v", got, err, c.creds)
			}
		})
	}
}

// TestNoCredentials: with no keys anywhere and the instance metadata service off, the error
// says what to set.
func TestNoCredentials(t *testing.T) {
	home := t.TempDir()
	cfg, err := loadAWSConfig(func(k string) string {
		return map[string]string{"HOME": home, "AWS_EC2_METADATA_DISABLED": "true"}[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cfg.creds(context.Background()); err == nil || !strings.Contains(err.Error(), "AWS_ACCESS_KEY_ID") {
		t.Fatalf("err %v", err)
	}
}

// FuzzReadSection: any config file is read without a panic, and a key it returns was written
// in the section asked for.
func FuzzReadSection(f *testing.F) {
	f.Add("[default]\nregion = eu-west-1\n[profile x]\n  nested = 1\nkey=v\n", "default")
	f.Add("[profile team]\ns3 =\n  endpoint_url = http://x\nendpoint_url=http://y\n", "profile team")
	f.Add("key = outside\n[", "")
	f.Fuzz(func(t *testing.T, text, section string) {
		path := filepath.Join(t.TempDir(), "config")
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		keys, found, err := readSection(path, section)
		if err != nil {
			t.Fatal(err)
		}
		if !found && len(keys) > 0 {
			t.Fatalf("keys %v from a section not found", keys)
		}
		for k, v := range keys {
			if !strings.Contains(text, k) && !strings.Contains(strings.ToLower(text), k) || !strings.Contains(text, v) {
				t.Fatalf("key %q = %q is not in the file", k, v)
			}
		}
	})
}
