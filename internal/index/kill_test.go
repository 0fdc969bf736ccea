package index

import (
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestUpdateSurvivesKill: an update killed with SIGKILL at random moments, while sessions
// grow between runs, leaves an index that opens and whose grep candidates give a scan's hits;
// the next update completes it, and the folder holds no segment the manifest does not name.
func TestUpdateSurvivesKill(t *testing.T) {
	src := t.TempDir()
	files := genArchive(t, src, 150)
	dir := filepath.Join(t.TempDir(), "index")
	r := rand.New(rand.NewSource(time.Now().UnixNano()))
	child := func(dir string) *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "CTXC_TEST_INDEX_CHILD="+dir, "CTXC_TEST_INDEX_SRC="+src)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	// How long a whole first update takes here, so that kills fall inside one.
	start := time.Now()
	if err := child(filepath.Join(t.TempDir(), "timing")).Wait(); err != nil {
		t.Fatal(err)
	}
	whole := time.Since(start)
	killed := 0
	for trial := 0; trial < 8; trial++ {
		if trial%3 == 0 {
			os.RemoveAll(dir) // some trials kill a first build, the others an update
		}
		cmd := child(dir)
		time.Sleep(time.Duration(r.Int63n(int64(whole) + 1)))
		if cmd.Process.Signal(syscall.SIGKILL) == nil {
			killed++
		}
		cmd.Wait()
		for k := 0; k < 20; k++ {
			appendLine(t, files[r.Intn(len(files))], fmt.Sprintf(`{"role":"user","content":"quokka round %d"}`, trial))
		}
		if _, err := Open(dir); err != nil {
			if _, statErr := os.Stat(filepath.Join(dir, manifestName)); os.IsNotExist(statErr) {
				continue // killed before its first manifest: no index yet, which grep says
			}
			t.Fatalf("trial %d: %v", trial, err)
		}
		agreeOn(t, dir, files, fmt.Sprintf("trial %d", trial), indexPatterns[:1])
	}
	if killed == 0 {
		t.Fatal("no update was killed")
	}
	if _, err := Update(dir, files, []string{src}, UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	agree(t, dir, files, "completed")
	m, _ := readManifest(dir)
	named := map[string]bool{manifestName: true}
	for _, s := range m.Segments {
		named[s.Name] = true
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !named[e.Name()] && e.Name() != manifestName+".ctxc.lock" {
			t.Errorf("left in the index folder: %s", e.Name())
		}
	}
}
