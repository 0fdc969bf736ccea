package usage

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/transcript"
)

// ccusageBin is ccusage 20.0.24 as scripts/install-ccusage.sh installs it.
func ccusageBin(t *testing.T) string {
	dir := os.Getenv("CTXC_CCUSAGE_BIN")
	if dir == "" {
		t.Skip("CTXC_CCUSAGE_BIN not set: eval \"$(scripts/install-ccusage.sh)\"")
	}
	return filepath.Join(dir, "ccusage")
}

type ccusageRow struct {
	Period    string  `json:"period"`
	TotalCost float64 `json:"totalCost"`
}

// runCcusage runs `ccusage REPORT --json --offline` over the sessions of dir (a Claude Code
// configuration folder), with days in UTC.
func runCcusage(t *testing.T, bin, dir, report string) []ccusageRow {
	t.Helper()
	cmd := exec.Command(bin, report, "--json", "--offline")
	cmd.Env = append(os.Environ(), "CLAUDE_CONFIG_DIR="+dir, "TZ=UTC")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ccusage %s: %v", report, err)
	}
	var res map[string]json.RawMessage
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("ccusage %s: %v\n%s", report, err, out)
	}
	var rows []ccusageRow
	if err := json.Unmarshal(res[report], &rows); err != nil {
		t.Fatalf("ccusage %s: %v", report, err)
	}
	return rows
}

// TestCcusageSameCost: on the Claude Code samples, the cost per session and per day equals
// ccusage's offline figures within 1%.
func TestCcusageSameCost(t *testing.T) {
	bin := ccusageBin(t)
	samples, _ := filepath.Glob("../../../shared/samples/claude-code/*.jsonl")
	if len(samples) == 0 {
		t.Skip("no Claude Code samples in ../shared/samples")
	}
	cfg := t.TempDir()
	proj := filepath.Join(cfg, "projects", "p")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	prices := Shipped()
	mine := map[string]float64{}
	days := map[string]float64{}
	for _, s := range samples {
		b, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(proj, filepath.Base(s)), b, 0o644); err != nil {
			t.Fatal(err)
		}
		rs, err := File(s, transcript.FormatClaude)
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) == 0 {
			continue
		}
		c := prices.Sum(rs)
		if !c.Complete() {
			t.Errorf("%s: unpriced models %v", s, c.Unpriced)
		}
		mine[strings.TrimSuffix(filepath.Base(s), ".jsonl")] = c.USD
		for _, r := range rs {
			usd, _ := prices.Cost(r.Model, r.Tokens)
			days[r.Time.UTC().Format("2006-01-02")] += usd
		}
	}
	compare(t, "session", mine, runCcusage(t, bin, cfg, "session"))
	compare(t, "day", days, runCcusage(t, bin, cfg, "daily"))
}

func compare(t *testing.T, what string, mine map[string]float64, theirs []ccusageRow) {
	t.Helper()
	seen := map[string]bool{}
	for _, r := range theirs {
		seen[r.Period] = true
		got, ok := mine[r.Period]
		if !ok {
			t.Errorf("%s %s: ccusage $%.6f, ctxc none", what, r.Period, r.TotalCost)
			continue
		}
		if math.Abs(got-r.TotalCost) > 0.01*r.TotalCost+1e-9 {
			t.Errorf("%s %s: ctxc $%.6f, ccusage $%.6f", what, r.Period, got, r.TotalCost)
		}
		t.Logf("%s %s: ctxc $%.6f, ccusage $%.6f", what, r.Period, got, r.TotalCost)
	}
	var extra []string
	for k, v := range mine {
		if !seen[k] && v > 0 {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	if len(extra) > 0 {
		t.Errorf("%s: ctxc prices %v, ccusage does not list them", what, extra)
	}
	if len(theirs) == 0 {
		t.Errorf("%s: ccusage found nothing", what)
	}
}
