package report

import (
	"sort"
	"time"

	"github.com/ctxc/ctxc/internal/usage"
)

// Failure is a session the report could not read.
type Failure struct {
	Path string
	Err  string
}

// Row is one line of a table by day, agent, project or model.
type Row struct {
	Key string
	Amount
}

// Lossy is a compaction among those that lost the most.
type Lossy struct {
	Session    *Session
	SessionNum int // its place in Sessions, for the link
	*Compaction
}

// Report is what the page shows.
type Report struct {
	Generated time.Time
	Prices    *usage.Prices
	Sessions  []*Session
	Failed    []Failure
	Total     Amount
	Unpriced  []string // models without a price, over every session
	Estimated int      // sessions without recorded usage: their tokens are the estimate

	Days, Agents, Projects, Models []Row
	Nearest                        []*Session // the sessions nearest their window, fullest first
	Lossiest                       []Lossy    // the compactions that lost the most facts
}

// Single is a report of one session: it shows that session's transcript.
func (r *Report) Single() bool { return len(r.Sessions) == 1 }

// listed is how many sessions and compactions the archive's top lists hold.
const listed = 20

// New assembles the report of the sessions read (in the order given).
func New(sessions []*Session, failed []Failure, prices *usage.Prices, now time.Time) *Report {
	r := &Report{Generated: now, Prices: prices, Sessions: sessions, Failed: failed}
	days, agents, projects, models := map[string]*Amount{}, map[string]*Amount{}, map[string]*Amount{}, map[string]*Amount{}
	unpriced := map[string]bool{}
	for i, s := range sessions {
		tokens := s.Tokens()
		r.Total.Sessions++
		r.Total.Tokens += tokens
		r.Total.USD += s.Cost.USD
		if len(s.Cost.Models) == 0 {
			r.Estimated++
		}
		for day, a := range s.Days {
			add(days, day, Amount{Tokens: a.Tokens, USD: a.USD})
		}
		start := "unknown"
		if !s.Start.IsZero() {
			start = s.Start.UTC().Format("2006-01-02")
		}
		add(days, start, Amount{Sessions: 1})
		add(agents, s.Format, Amount{Sessions: 1, Tokens: tokens, USD: s.Cost.USD})
		project := s.Project
		if project == "" {
			project = "(not recorded)"
		}
		add(projects, project, Amount{Sessions: 1, Tokens: tokens, USD: s.Cost.USD})
		for _, m := range s.Cost.Models {
			add(models, modelName(m.Model), Amount{Sessions: 1, Tokens: m.Total(), USD: m.USD})
		}
		for _, u := range s.Cost.Unpriced {
			unpriced[u] = true
		}
		for k := range s.Compactions {
			if c := &s.Compactions[k]; c.LostFacts() > 0 {
				r.Lossiest = append(r.Lossiest, Lossy{s, i, c})
			}
		}
		if s.Window > 0 {
			r.Nearest = append(r.Nearest, s)
		}
	}
	r.Unpriced = sortedKeys(unpriced)
	r.Days = rows(days, false)
	r.Agents, r.Projects, r.Models = rows(agents, true), rows(projects, true), rows(models, true)
	sort.SliceStable(r.Nearest, func(i, j int) bool { return r.Nearest[i].Fill() > r.Nearest[j].Fill() })
	r.Nearest = r.Nearest[:min(len(r.Nearest), listed)]
	sort.SliceStable(r.Lossiest, func(i, j int) bool { return r.Lossiest[i].LostFacts() > r.Lossiest[j].LostFacts() })
	r.Lossiest = r.Lossiest[:min(len(r.Lossiest), listed)]
	return r
}

func modelName(m string) string {
	if m == "" {
		return "(model not recorded)"
	}
	return m
}

func add(m map[string]*Amount, key string, a Amount) {
	t := m[key]
	if t == nil {
		t = &Amount{}
		m[key] = t
	}
	t.Sessions += a.Sessions
	t.Tokens += a.Tokens
	t.USD += a.USD
}

// rows lists a table: by key (days, in order), or by cost then tokens, largest first.
func rows(m map[string]*Amount, bySize bool) []Row {
	out := make([]Row, 0, len(m))
	for _, k := range sortedKeys(m) {
		out = append(out, Row{k, *m[k]})
	}
	if bySize {
		sort.SliceStable(out, func(i, j int) bool {
			if out[i].USD != out[j].USD {
				return out[i].USD > out[j].USD
			}
			return out[i].Tokens > out[j].Tokens
		})
	}
	return out
}
