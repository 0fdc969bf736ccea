package cmd

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// repoFileRef is a path of the repository named in a document: a Go file or a script under one
// of the repository's top directories (`internal/grep/grep.go`, `scripts/bench-stats.sh`).
var repoFileRef = regexp.MustCompile("`((?:[a-z0-9_-]+/)+[A-Za-z0-9_.-]+\\.(?:go|sh|md|txtar|jsonl))`")

// TestDocsNameFilesThatExist keeps the documents honest as the code moves: every file they name
// in backquotes exists.
func TestDocsNameFilesThatExist(t *testing.T) {
	docs, _ := filepath.Glob("../docs/*.md")
	docs = append(docs, "../README.md", "../CONTRIBUTING.md")
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range repoFileRef.FindAllStringSubmatch(withoutCodeBlocks(string(b)), -1) {
			if strings.ContainsAny(m[1], "*") {
				continue
			}
			if _, err := os.Stat(filepath.Join("..", m[1])); err != nil {
				t.Errorf("%s names %s, which does not exist", filepath.Base(doc), m[1])
			}
		}
	}
}

// withoutCodeBlocks drops the fenced blocks of a markdown text: their paths are examples of
// what a session holds, not files of the repository.
func withoutCodeBlocks(s string) string {
	var b strings.Builder
	in := false
	for _, line := range strings.SplitAfter(s, "\n") {
		if strings.HasPrefix(line, "```") {
			in = !in
			continue
		}
		if !in {
			b.WriteString(line)
		}
	}
	return b.String()
}

// TestArchitectureMatchesPackages checks docs/architecture.md's map against the code: the
// packages its tree lists under internal/ are exactly the directories there (a package inside
// another's directory, such as an agent's under internal/agent, listed indented under it), and
// each has a package comment that says what it owns.
func TestArchitectureMatchesPackages(t *testing.T) {
	b, err := os.ReadFile("../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	_, tree, ok := strings.Cut(string(b), "\ninternal/\n")
	if !ok {
		t.Fatal("docs/architecture.md: no internal/ tree")
	}
	tree, _, _ = strings.Cut(tree, "```")
	// Each level of the tree is indented two spaces more than its parent's.
	var listed, path []string
	for _, line := range strings.Split(tree, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || !strings.HasPrefix(line, "  ") || !strings.HasSuffix(f[0], "/") {
			continue
		}
		level := (len(line)-len(strings.TrimLeft(line, " ")))/2 - 1
		if level > len(path) {
			t.Fatalf("docs/architecture.md: %q is indented below no folder", line)
		}
		path = append(path[:level], strings.TrimSuffix(f[0], "/"))
		listed = append(listed, strings.Join(path, "/"))
	}
	dirs := internalPackageDirs(t)
	sort.Strings(listed)
	if strings.Join(listed, " ") != strings.Join(dirs, " ") {
		t.Errorf("docs/architecture.md lists %v; internal/ holds %v", listed, dirs)
	}
	for _, d := range dirs {
		if doc, base := packageDoc(t, filepath.Join("../internal", d)), filepath.Base(d); !strings.HasPrefix(doc, "Package "+base+" ") {
			t.Errorf("internal/%s: package comment %q does not start with \"Package %s\"", d, doc, base)
		}
	}
}

// internalPackageDirs are the directories under internal/, and the directories inside them that
// hold a package (Go files other than tests, testdata aside), as paths under internal/.
func internalPackageDirs(t *testing.T) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir("../internal", func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() || p == "../internal" {
			return err
		}
		if d.Name() == "testdata" {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel("../internal", p)
		if !strings.Contains(rel, string(filepath.Separator)) {
			dirs = append(dirs, rel)
			return nil
		}
		if files, _ := filepath.Glob(filepath.Join(p, "*.go")); slices.ContainsFunc(files, func(f string) bool { return !strings.HasSuffix(f, "_test.go") }) {
			dirs = append(dirs, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(dirs)
	return dirs
}

// packageDoc returns the package comment of the package in dir.
func packageDoc(t *testing.T, dir string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ParseComments|parser.PackageClauseOnly)
		if err != nil {
			t.Fatal(err)
		}
		if f.Doc != nil {
			return f.Doc.Text()
		}
	}
	return ""
}

// TestReadmeLinksEveryDoc: README is the way in; every document under docs/ is linked from it.
func TestReadmeLinksEveryDoc(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	docs, _ := filepath.Glob("../docs/*.md")
	for _, d := range docs {
		if link := "(docs/" + filepath.Base(d) + ")"; !strings.Contains(string(readme), link) {
			t.Errorf("README does not link docs/%s", filepath.Base(d))
		}
	}
}

// TestArchitectureAgentPackagesBelowTranscript: an agent's package (internal/agent/<agent>) is
// written against internal/conv and never imports internal/transcript, which imports it.
func TestArchitectureAgentPackagesBelowTranscript(t *testing.T) {
	files, err := filepath.Glob("../internal/agent/*/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no agent package: %v", err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if p := strings.Trim(imp.Path.Value, `"`); strings.HasSuffix(p, "/internal/transcript") {
				t.Errorf("%s imports %s", name, p)
			}
		}
	}
}
