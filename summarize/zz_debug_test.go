package summarize

import (
	"fmt"
	"testing"
	"time"
)

func TestZZDebug(t *testing.T) {
	items := genSession(9, 30_000_000)
	s := time.Now()
	p := Plan(Request{Items: items}, 32768)
	fmt.Println("plan", time.Since(s), p)
	s = time.Now()
	r := Extractive(Request{Items: items})
	fmt.Println("extractive", time.Since(s), len(r.Text), r.InputTokens)
}
