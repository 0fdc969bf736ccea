package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"sync"

	"github.com/ctxc/ctxc/internal/audit"
)

//go:embed page.html
var pageText string

// maxLost is how many lost facts a compaction lists on the page (ctxc audit lists them all).
const maxLost = 20

// page is the report's template, parsed when a report is first written: not at the start of
// every command, which would pay for it (about 1 ms and 2,500 allocations) without a report.
var page = sync.OnceValue(func() *template.Template { return template.Must(template.New("page").Funcs(pageFuncs).Parse(pageText)) })

var pageFuncs = template.FuncMap{
	"short": short,
	"human": human,
	"usd":   usd,
	"i64":   func(n int) int64 { return int64(n) },
	"sub":   func(a, b int) int { return a - b },
	"chart": func(s *Session, num int, points bool) template.HTML { return chart(s, num, points) },
	"pair":  func(n int, s *Session, points bool) sessionView { return sessionView{n, s, points} },
	"limit": func(l []audit.Lost) []audit.Lost { return l[:min(len(l), maxLost)] },
	"num": func(all []*Session, s *Session) int {
		for i, o := range all {
			if o == s {
				return i
			}
		}
		return -1
	},
	"compactions": func(r *Report) int {
		n := 0
		for _, s := range r.Sessions {
			n += len(s.Compactions)
		}
		return n
	},
	"maxUSD": func(rs []Row) float64 {
		m := 0.0
		for _, r := range rs {
			m = max(m, r.USD)
		}
		return m
	},
	"bar": func(v, of float64) template.HTML {
		if of <= 0 {
			return ""
		}
		return template.HTML(fmt.Sprintf(`<span class="bar"><i style="width:%.0f%%"></i></span>`, min(v/of, 1)*100))
	},
	"fill": func(s *Session) template.HTML {
		f := s.Fill()
		hot := ""
		if f >= 0.8 {
			hot = ` class="hot"`
		}
		return template.HTML(fmt.Sprintf(`<span class="bar" title="%.0f%% of the window"><i%s style="width:%.0f%%"></i></span> %.0f%%`, f*100, hot, min(f, 1)*100, f*100))
	},
}

// sessionView is a session as the page's session template takes it.
type sessionView struct {
	N      int
	S      *Session
	Points bool // a point per turn on the chart
}

// Write renders the report as one HTML page.
func Write(w io.Writer, r *Report) error {
	return page().Execute(w, r)
}
