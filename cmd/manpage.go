package cmd

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// manHeader is what every page's .TH line says.
type manHeader struct {
	Title, Section, Source string
	Date                   time.Time
}

// writeManTree writes one page per available command of the tree under c into dir, named by the
// command's path (ctxc-hooks-install.1).
func writeManTree(c *cobra.Command, h manHeader, dir string) error {
	for _, sub := range manChildren(c) {
		if err := writeManTree(sub, h, dir); err != nil {
			return err
		}
	}
	var b strings.Builder
	writeManPage(&b, c, h)
	name := strings.ReplaceAll(c.CommandPath(), " ", "-") + "." + h.Section
	return os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644)
}

// manChildren are the subcommands that get a page of their own, by name.
func manChildren(c *cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() && !sub.IsAdditionalHelpTopicCommand() {
			out = append(out, sub)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

// writeManPage writes c's page in roff (man(7)): name, synopsis, description, options, examples
// and the related pages. Help text is written as typed: its paragraphs are filled, and its
// indented lines (JSON, tables, commands) are kept line for line.
func writeManPage(w io.Writer, c *cobra.Command, h manHeader) {
	c.InitDefaultHelpFlag()
	dashed := strings.ReplaceAll(c.CommandPath(), " ", "-")
	fmt.Fprintf(w, ".TH \"%s\" \"%s\" \"%s\" \"%s\" \"\"\n.nh\n", h.Title, h.Section, h.Date.Format("Jan 2006"), h.Source)
	fmt.Fprintf(w, ".SH NAME\n%s \\- %s\n", roffEscape(dashed), roffEscape(c.Short))
	fmt.Fprintf(w, ".SH SYNOPSIS\n\\fB%s\\fP\n", roffEscape(c.UseLine()))
	desc := c.Long
	if desc == "" {
		desc = c.Short
	}
	fmt.Fprint(w, ".SH DESCRIPTION\n")
	writeManText(w, desc)
	writeManFlags(w, "OPTIONS", c.NonInheritedFlags())
	writeManFlags(w, "OPTIONS INHERITED FROM PARENT COMMANDS", c.InheritedFlags())
	if c.Example != "" {
		fmt.Fprintf(w, ".SH EXAMPLE\n.EX\n%s\n.EE\n", roffLines(c.Example))
	}
	writeManSeeAlso(w, c, dashed, h.Section)
}

// writeManText writes help text paragraph by paragraph: a paragraph with an indented line is
// kept as laid out (no filling), any other is filled by the formatter.
func writeManText(w io.Writer, text string) {
	for _, para := range strings.Split(strings.TrimSpace(text), "\n\n") {
		para = strings.Trim(para, "\n")
		if para == "" {
			continue
		}
		if strings.Contains("\n"+para, "\n ") {
			fmt.Fprintf(w, ".PP\n.nf\n%s\n.fi\n", roffLines(para))
		} else {
			fmt.Fprintf(w, ".PP\n%s\n", roffLines(para))
		}
	}
}

// writeManFlags writes the visible flags of fs as a tagged list under the heading.
func writeManFlags(w io.Writer, heading string, fs *pflag.FlagSet) {
	if !fs.HasAvailableFlags() {
		return
	}
	fmt.Fprintf(w, ".SH %s\n", heading)
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Deprecated != "" || f.Hidden {
			return
		}
		tag := `\fB\-\-` + roffEscape(f.Name) + `\fP`
		if f.Shorthand != "" && f.ShorthandDeprecated == "" {
			tag = `\fB\-` + roffEscape(f.Shorthand) + `\fP, ` + tag
		}
		def := f.DefValue
		if f.Value.Type() == "string" {
			def = fmt.Sprintf("%q", def)
		}
		if f.NoOptDefVal != "" {
			tag += "[=" + roffEscape(def) + "]"
		} else {
			tag += "=" + roffEscape(def)
		}
		fmt.Fprintf(w, ".TP\n%s\n%s\n", tag, roffLines(f.Usage))
	})
}

// writeManSeeAlso names the parent's page and the subcommands' pages.
func writeManSeeAlso(w io.Writer, c *cobra.Command, dashed, section string) {
	var refs []string
	if c.HasParent() {
		refs = append(refs, strings.ReplaceAll(c.Parent().CommandPath(), " ", "-"))
	}
	for _, sub := range manChildren(c) {
		refs = append(refs, dashed+"-"+sub.Name())
	}
	if len(refs) == 0 {
		return
	}
	for i, r := range refs {
		refs[i] = `\fB` + roffEscape(r) + `(` + section + `)\fP`
	}
	fmt.Fprintf(w, ".SH SEE ALSO\n%s\n", strings.Join(refs, ", "))
}

// roffEscape makes s literal text on a roff line: backslashes and hyphens (so that options print
// as the minus signs a shell needs).
func roffEscape(s string) string {
	return strings.NewReplacer(`\`, `\e`, "-", `\-`).Replace(s)
}

// roffLines escapes each line of s and keeps a line that opens with a dot or a quote from being
// read as a request.
func roffLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		l = roffEscape(l)
		if strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'") {
			l = `\&` + l
		}
		lines[i] = l
	}
	return strings.Join(lines, "\n")
}
