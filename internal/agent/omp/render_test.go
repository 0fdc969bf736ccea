package omp_test

import (
	"testing"

	"github.com/ctxc/ctxc/internal/agent/omp"
	"github.com/ctxc/ctxc/internal/agentcheck"
)

// renderCases: texts and what omp 18.2.3's template rendering makes of them (taken from its
// @oh-my-pi/pi-utils render, which TestRenderIsOmps asks again when omp is installed).
var renderCases = []struct{ in, want string }{
	{"a  \nb", "a\nb"},
	{"a\n\n\nb", "a\nb"},
	{"a\n\nb", "a\n\nb"},
	{"\n\na\n\n", "a"},
	{"x\n\n</summary>", "x\n</summary>"},
	{"| a | b |\n|:--| --: |", "|a|b|\n|:---|---:|"},
	{"```\n  x  \n\n\n```\ny  ", "```\n  x\n\n\n```\ny"},
	{"a\u00a0\n\u3000\nb", "a\n\nb"},
	{"<summary>\n\n\nfoo\n</summary>\n", "<summary>\nfoo\n</summary>"},
	{"Notes: the build must stay green; \n</ctxc-head>", "Notes: the build must stay green;\n</ctxc-head>"},
	{"  indented  \n\t\n  \nend", "  indented\nend"},
	{"| not a table", "| not a table"},
	{"<Tag>\n\n</Tag>", "<Tag>\n\n</Tag>"},
}

func TestRender(t *testing.T) {
	for _, tc := range renderCases {
		if got := omp.Render(tc.in); got != tc.want {
			t.Errorf("Render(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestRenderIsOmps: omp itself renders the cases as Render does.
func TestRenderIsOmps(t *testing.T) {
	in := make([]string, len(renderCases))
	for i, tc := range renderCases {
		in[i] = tc.in
	}
	got, ok, err := agentcheck.OmpRender(in)
	if !ok {
		agentcheck.Skip(t, "omp not installed (eval \"$(scripts/install-agents.sh)\")")
	}
	if err != nil {
		t.Fatal(err)
	}
	for i, tc := range renderCases {
		if got[i] != tc.want || omp.Render(tc.in) != got[i] {
			t.Errorf("%q: omp renders %q, Render %q, the table %q", tc.in, got[i], omp.Render(tc.in), tc.want)
		}
	}
}
