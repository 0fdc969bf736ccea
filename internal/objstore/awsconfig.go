package objstore

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// awsConfig is what the AWS command line would use for S3, read from the same places in the
// same order: the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN,
// AWS_REGION or AWS_DEFAULT_REGION, AWS_PROFILE, AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL,
// AWS_MAX_ATTEMPTS, AWS_CA_BUNDLE), then the profile's sections of ~/.aws/credentials and ~/.aws/config
// (AWS_SHARED_CREDENTIALS_FILE, AWS_CONFIG_FILE): aws_access_key_id, aws_secret_access_key,
// aws_session_token, region, endpoint_url, max_attempts, ca_bundle, credential_process. Without keys in
// either, a container's credentials endpoint (AWS_CONTAINER_CREDENTIALS_FULL_URI or _RELATIVE_URI)
// or the EC2 instance's role (IMDSv2) are asked, as the SDKs do. Single sign-on and role
// profiles are reached through credential_process (`aws configure export-credentials --format
// process`), documented in docs/team-archive.md.
type awsConfig struct {
	Region      string
	Endpoint    string // "" for AWS's own endpoints
	MaxAttempts int
	CABundle    string // a PEM file of the certificate authorities to trust, "" for the system's
	creds       func(ctx context.Context) (credentials, error)
}

// profile is one profile's settings, from the credentials file over the config file.
type profile map[string]string

// loadAWSConfig reads the configuration; env is os.Getenv in use.
func loadAWSConfig(env func(string) string) (awsConfig, error) {
	name := firstOf(env("AWS_PROFILE"), env("AWS_DEFAULT_PROFILE"), "default")
	home := homeDir(env)
	p, err := readProfile(name, firstOf(env("AWS_CONFIG_FILE"), filepath.Join(home, ".aws", "config")),
		firstOf(env("AWS_SHARED_CREDENTIALS_FILE"), filepath.Join(home, ".aws", "credentials")))
	if err != nil {
		return awsConfig{}, err
	}
	if env("AWS_PROFILE") != "" && p == nil {
		return awsConfig{}, fmt.Errorf("AWS_PROFILE=%s: no such profile in the AWS config or credentials file", name)
	}
	c := awsConfig{
		Region:      firstOf(env("AWS_REGION"), env("AWS_DEFAULT_REGION"), p["region"], defaultRegion),
		Endpoint:    strings.TrimRight(firstOf(env("AWS_ENDPOINT_URL_S3"), env("AWS_ENDPOINT_URL"), p["endpoint_url"]), "/"),
		MaxAttempts: 3,
		CABundle:    firstOf(env("AWS_CA_BUNDLE"), p["ca_bundle"]),
	}
	if n, err := strconv.Atoi(firstOf(env("AWS_MAX_ATTEMPTS"), p["max_attempts"])); err == nil && n > 0 {
		c.MaxAttempts = n
	}
	c.creds = credentialsFrom(env, p)
	return c, nil
}

// credentialsFrom chooses where the credentials come from, in the SDKs' order.
func credentialsFrom(env func(string) string, p profile) func(context.Context) (credentials, error) {
	if id, secret := env("AWS_ACCESS_KEY_ID"), env("AWS_SECRET_ACCESS_KEY"); id != "" && secret != "" {
		c := credentials{AccessKey: id, SecretKey: secret, Token: env("AWS_SESSION_TOKEN")}
		return func(context.Context) (credentials, error) { return c, nil }
	}
	if id, secret := p["aws_access_key_id"], p["aws_secret_access_key"]; id != "" && secret != "" {
		c := credentials{AccessKey: id, SecretKey: secret, Token: p["aws_session_token"]}
		return func(context.Context) (credentials, error) { return c, nil }
	}
	if cmd := p["credential_process"]; cmd != "" {
		return func(ctx context.Context) (credentials, error) { return processCredentials(ctx, cmd) }
	}
	if uri := containerCredentialsURI(env); uri != "" {
		return func(ctx context.Context) (credentials, error) {
			return fetchCredentials(ctx, uri, containerAuth(env), nil)
		}
	}
	if !strings.EqualFold(env("AWS_EC2_METADATA_DISABLED"), "true") {
		return instanceCredentials
	}
	return func(context.Context) (credentials, error) { return credentials{}, errNoCredentials }
}

var errNoCredentials = errors.New("no credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE")

// readProfile reads a profile's keys from the config file ([default] or [profile NAME]) and
// then the credentials file ([NAME]), the latter winning; nil when neither has it. A missing file
// is no error.
func readProfile(name, configFile, credsFile string) (profile, error) {
	var p profile
	section := "profile " + name
	if name == "default" {
		section = "default"
	}
	for _, f := range []struct{ path, section string }{{configFile, section}, {credsFile, name}} {
		keys, found, err := readSection(f.path, f.section)
		if err != nil {
			return nil, err
		}
		if !found {
			continue
		}
		if p == nil {
			p = profile{}
		}
		for k, v := range keys {
			p[k] = v
		}
	}
	return p, nil
}

// readSection reads the key = value lines of one [section] of an INI file as the AWS tools
// write it (comments with # or ;, keys lowercased, nested "services" blocks skipped).
func readSection(path, section string) (map[string]string, bool, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	keys := map[string]string{}
	found, in := false, false
	r := bufio.NewReader(f)
	for n := 1; ; n++ {
		line, err := r.ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, false, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		t := strings.TrimSpace(line)
		switch {
		case t == "" || t[0] == '#' || t[0] == ';':
		case t[0] == '[':
			name := strings.TrimSpace(strings.Trim(t, "[]"))
			in = name == section
			found = found || in
		case in && (line[0] == ' ' || line[0] == '\t'):
			// a nested value (under "s3 =" or a services block): not read
		case in:
			k, v, ok := strings.Cut(t, "=")
			if ok {
				keys[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
			}
		}
		if err != nil {
			return keys, found, nil
		}
	}
}

// processCredentials runs a profile's credential_process and reads the JSON it prints.
func processCredentials(ctx context.Context, command string) (credentials, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	var cmd *exec.Cmd
	if runtime.GOOS == "windows" {
		cmd = exec.CommandContext(ctx, "cmd", "/C", command)
	} else {
		cmd = exec.CommandContext(ctx, "sh", "-c", command)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return credentials{}, fmt.Errorf("credential_process %q: %v: %s", command, err, strings.TrimSpace(stderr.String()))
	}
	var v struct {
		AccessKeyID     string `json:"AccessKeyId"`
		SecretAccessKey string
		SessionToken    string
	}
	if err := json.Unmarshal(out, &v); err != nil || v.AccessKeyID == "" || v.SecretAccessKey == "" {
		return credentials{}, fmt.Errorf("credential_process %q: its output is not credentials JSON (AccessKeyId, SecretAccessKey)", command)
	}
	return credentials{AccessKey: v.AccessKeyID, SecretKey: v.SecretAccessKey, Token: v.SessionToken}, nil
}

// containerCredentialsURI is the endpoint a container's runtime (ECS, EKS Pod Identity) gives
// for credentials, "" for none.
func containerCredentialsURI(env func(string) string) string {
	if rel := env("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"); rel != "" {
		return "http://169.254.170.2" + rel
	}
	return env("AWS_CONTAINER_CREDENTIALS_FULL_URI")
}

// containerAuth is the Authorization header the container's endpoint asks for, if any.
func containerAuth(env func(string) string) string {
	if f := env("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"); f != "" {
		if b, err := os.ReadFile(f); err == nil {
			return strings.TrimSpace(string(b))
		}
	}
	return env("AWS_CONTAINER_AUTHORIZATION_TOKEN")
}

// imdsEndpoint is the EC2 instance metadata service (a variable for tests).
var imdsEndpoint = "http://169.254.169.254"

// instanceCredentials asks the EC2 instance metadata service (IMDSv2) for its role's
// credentials; off EC2 it fails within a second.
func instanceCredentials(ctx context.Context) (credentials, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	client := &http.Client{}
	req, _ := http.NewRequestWithContext(ctx, http.MethodPut, imdsEndpoint+"/latest/api/token", nil)
	req.Header.Set("X-Aws-Ec2-Metadata-Token-Ttl-Seconds", "300")
	token, err := small(client.Do(req))
	if err != nil {
		return credentials{}, errNoCredentials
	}
	header := http.Header{"X-Aws-Ec2-Metadata-Token": {string(token)}}
	base := imdsEndpoint + "/latest/meta-data/iam/security-credentials/"
	req, _ = http.NewRequestWithContext(ctx, http.MethodGet, base, nil)
	req.Header = header
	role, err := small(client.Do(req))
	if err != nil || len(role) == 0 {
		return credentials{}, errNoCredentials
	}
	name, _, _ := strings.Cut(strings.TrimSpace(string(role)), "\n")
	return fetchCredentials(ctx, base+name, "", header)
}

// fetchCredentials reads credentials JSON (AccessKeyId, SecretAccessKey, Token) from a
// metadata endpoint.
func fetchCredentials(ctx context.Context, uri, auth string, header http.Header) (credentials, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, uri, nil)
	if err != nil {
		return credentials{}, err
	}
	if header != nil {
		req.Header = header
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	body, err := small((&http.Client{Timeout: 5 * time.Second}).Do(req))
	if err != nil {
		return credentials{}, fmt.Errorf("credentials from %s: %w", uri, err)
	}
	var v struct {
		AccessKeyID     string `json:"AccessKeyId"`
		SecretAccessKey string
		Token           string
	}
	if err := json.Unmarshal(body, &v); err != nil || v.AccessKeyID == "" {
		return credentials{}, fmt.Errorf("credentials from %s: not credentials JSON", uri)
	}
	return credentials{AccessKey: v.AccessKeyID, SecretKey: v.SecretAccessKey, Token: v.Token}, nil
}

// small reads a short answer of a metadata endpoint; a status other than 200 is an error.
func small(resp *http.Response, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s", resp.Status)
	}
	return body, nil
}

func firstOf(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

func homeDir(env func(string) string) string {
	if h := env("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}
