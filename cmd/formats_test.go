package cmd

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/agent"
	"github.com/ctxc/ctxc/internal/cmdutil"
	"github.com/ctxc/ctxc/internal/iostreams"
)

// TestEveryFormatIsOffered: each format of the registry is named by --format's help (on the
// root command and on stats), by its completions, by the error of an unknown --format, by the
// MCP search tool's schema and by README's table of formats, which names no other.
func TestEveryFormatIsOffered(t *testing.T) {
	help, _, _ := runInProcess(t, []string{"--help"})
	statsHelp, _, _ := runInProcess(t, []string{"stats", "--help"})
	completions, _, _ := runInProcess(t, []string{"__complete", "--format", ""})
	_, bogus, code := runInProcess(t, []string{"--format", "bogus", "stats", "x.jsonl"})
	if code != 2 {
		t.Errorf("--format bogus: exit %d, want 2", code)
	}
	schema := mcpToolsList(t)
	for _, name := range agent.Names() {
		for what, text := range map[string]string{"ctxc --help": help, "ctxc stats --help": statsHelp,
			"--format bogus": bogus, "the MCP schema": schema} {
			if !regexp.MustCompile(`[ :]` + regexp.QuoteMeta(name) + `[,)" ]`).MatchString(text) {
				t.Errorf("%s does not name the format %s", what, name)
			}
		}
		if !slices.Contains(strings.Split(completions, "\n"), name) {
			t.Errorf("the completions of --format lack %s", name)
		}
	}
	if got, want := readmeFormats(t), agent.Names(); !sameSet(got, want) {
		t.Errorf("README's table of formats names %v, the registry %v", got, want)
	}
}

// mcpToolsList is what `ctxc mcp` answers to tools/list.
func mcpToolsList(t *testing.T) string {
	t.Helper()
	ios, in, out, _ := iostreams.Test()
	in.WriteString(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\n")
	f := &cmdutil.Factory{IO: ios, Getenv: func(string) string { return "" }, Build: cmdutil.BuildInfo{Version: "test"}.Resolve()}
	if code := Run(t.Context(), f, []string{"mcp"}); code != 0 {
		t.Fatalf("ctxc mcp: exit %d", code)
	}
	return out.String()
}

// readmeFormats are the names in the first column of README's table of formats.
func readmeFormats(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Formats\n")
	if !ok {
		t.Fatal("README: no Formats section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var names []string
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		first := strings.Split(line, "|")[1]
		for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(first, -1) {
			if !slices.Contains(names, m[1]) {
				names = append(names, m[1])
			}
		}
	}
	return names
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
