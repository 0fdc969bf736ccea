// Package usage reads the provider usage an agent recorded, response by response (its model,
// its time and its tokens by kind), and prices it from a dated price table that ships with ctxc
// (prices.json) or one the user gives. A model the table does not name is said to be unpriced,
// never guessed from a similar name.
//
// The package imports neither cobra nor viper.
package usage

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
)

//go:embed prices.json
var shippedPrices []byte

// Price is what one model costs, in USD per million tokens. CacheWrite is the five-minute cache
// write, CacheWrite1h the one-hour one (Claude Code's default since 2.1). Above200k, when set,
// prices the tokens of a kind beyond the first 200,000 of one response (long-context pricing).
type Price struct {
	Window       int     `json:"window,omitempty"` // context window in tokens
	Input        float64 `json:"input"`
	Output       float64 `json:"output"`
	CacheWrite   float64 `json:"cache_write"`
	CacheWrite1h float64 `json:"cache_write_1h"`
	CacheRead    float64 `json:"cache_read"`
	Above200k    *Tier   `json:"above_200k,omitempty"`
}

// Tier is the long-context price of a model, in USD per million tokens.
type Tier struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheWrite float64 `json:"cache_write"`
	CacheRead  float64 `json:"cache_read"`
}

// Prices is a dated price table.
type Prices struct {
	Date   string           `json:"date"`
	Source string           `json:"source"`
	Models map[string]Price `json:"models"`
}

// tierAt is where long-context pricing starts, per kind of token of one response.
const tierAt = 200_000

// Shipped is the price table that ships with ctxc.
func Shipped() *Prices {
	p, err := parsePrices(shippedPrices)
	if err != nil {
		panic("usage: the shipped price table: " + err.Error())
	}
	return p
}

// PriceFileError is a price table that cannot be used: exit 78 (configuration).
type PriceFileError struct {
	Path string
	Err  error
}

func (e *PriceFileError) Error() string { return fmt.Sprintf("price table %s: %v", e.Path, e.Err) }
func (e *PriceFileError) Unwrap() error { return e.Err }

// LoadPrices reads a price table in prices.json's form. Its models replace the shipped table's
// of the same name and add to them; its date and source name the result.
func LoadPrices(path string) (*Prices, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, &PriceFileError{path, err}
	}
	over, err := parsePrices(b)
	if err != nil {
		return nil, &PriceFileError{path, err}
	}
	p := Shipped()
	for name, pr := range over.Models {
		p.Models[strings.ToLower(name)] = pr
	}
	if over.Date != "" || over.Source != "" {
		p.Date, p.Source = over.Date, over.Source
	} else {
		p.Source = path
	}
	return p, nil
}

func parsePrices(b []byte) (*Prices, error) {
	var p Prices
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, err
	}
	if len(p.Models) == 0 {
		return nil, fmt.Errorf("no models")
	}
	models := make(map[string]Price, len(p.Models))
	for name, pr := range p.Models {
		for _, v := range []float64{pr.Input, pr.Output, pr.CacheWrite, pr.CacheWrite1h, pr.CacheRead} {
			if v < 0 {
				return nil, fmt.Errorf("model %q: a negative price", name)
			}
		}
		if pr.Window < 0 {
			return nil, fmt.Errorf("model %q: a negative window", name)
		}
		models[strings.ToLower(name)] = pr
	}
	p.Models = models
	return &p, nil
}

// dateSuffix is the release date a provider appends to a model's name (-20250929, @20251101).
var dateSuffix = regexp.MustCompile(`[-@]20[0-9]{6}$`)

// Lookup finds a model's price: by its name as recorded, then without what only routes or
// dates it (a provider prefix such as anthropic/, a [1m] context suffix, a release date). It
// does not guess: a name that still matches nothing is unpriced.
func (p *Prices) Lookup(model string) (Price, bool) {
	name := strings.ToLower(strings.TrimSpace(model))
	if pr, ok := p.Models[name]; ok {
		return pr, true
	}
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	name = strings.TrimSuffix(name, "[1m]")
	if pr, ok := p.Models[name]; ok {
		return pr, true
	}
	name = dateSuffix.ReplaceAllString(name, "")
	pr, ok := p.Models[name]
	return pr, ok
}

// Cost prices one response's tokens; false when the model has no price.
func (p *Prices) Cost(model string, t Tokens) (float64, bool) {
	pr, ok := p.Lookup(model)
	if !ok {
		return 0, false
	}
	return pr.cost(t), true
}

func (pr Price) cost(t Tokens) float64 {
	var tier Tier
	if pr.Above200k != nil {
		tier = *pr.Above200k
	}
	write5m := max(t.CacheWrite-t.CacheWrite1h, 0)
	usd := tiered(t.Input, pr.Input, tier.Input) +
		tiered(t.Output, pr.Output, tier.Output) +
		tiered(write5m, pr.CacheWrite, tier.CacheWrite) +
		float64(t.CacheWrite1h)*pr.CacheWrite1h +
		tiered(t.CacheRead, pr.CacheRead, tier.CacheRead)
	return usd / 1e6
}

// tiered prices n tokens at base, those beyond tierAt at above when it is set.
func tiered(n int64, base, above float64) float64 {
	if above == 0 || n <= tierAt {
		return float64(n) * base
	}
	return tierAt*base + float64(n-tierAt)*above
}
