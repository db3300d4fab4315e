package main

import (
	"fmt"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/setpoint-dev/setpoint/test/promsample"
)

// scrape is every sample of one /metrics read.
type scrape []promsample.Sample

func scrapeURL(url string) (scrape, error) {
	c := http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %s", url, resp.Status)
	}
	samples, err := promsample.Parse(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", url, err)
	}
	return samples, nil
}

// sum adds the samples of a family whose labels include every pair of
// match ("key", "value", ...).
func (s scrape) sum(family string, match ...string) float64 {
	return promsample.Sum(s, family, match...)
}

// count is how many series of a family have labels including every pair
// of match.
func (s scrape) count(family string, match ...string) int {
	n := 0
	for _, x := range s {
		if x.Name == family && x.Matches(match...) {
			n++
		}
	}
	return n
}

// writeVerbs are the verbs that change state.
var writeVerbs = map[string]bool{"create": true, "update": true, "patch": true, "apply": true, "delete": true}

// apiCounts is setpoint_api_requests_total summed over codes, keyed
// "verb resource".
func (s scrape) apiCounts() map[string]float64 {
	out := map[string]float64{}
	for _, x := range s {
		if x.Name == "setpoint_api_requests_total" {
			out[x.Labels["verb"]+" "+x.Labels["resource"]] += x.Value
		}
	}
	return out
}

// apiErrors counts requests whose code is not a 2xx text.
func (s scrape) apiErrors() map[string]float64 {
	out := map[string]float64{}
	for _, x := range s {
		if x.Name != "setpoint_api_requests_total" || x.Value == 0 {
			continue
		}
		switch x.Labels["code"] {
		case "OK", "Created", "Accepted", "No Content":
			continue
		}
		out[x.Labels["verb"]+" "+x.Labels["resource"]+" "+x.Labels["code"]] += x.Value
	}
	return out
}

// diffCounts is b - a per key, dropping zeros.
func diffCounts(a, b map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range b {
		if d := v - a[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}

func sumWrites(m map[string]float64) float64 {
	var t float64
	for k, v := range m {
		verb, _, _ := strings.Cut(k, " ")
		if writeVerbs[verb] {
			t += v
		}
	}
	return t
}

func sumAll(m map[string]float64) float64 {
	var t float64
	for _, v := range m {
		t += v
	}
	return t
}

// bucket is one cumulative histogram bucket.
type bucket struct {
	le    float64
	count float64
}

// histogram returns the cumulative buckets of family_bucket whose labels
// match, summed across matching series.
func (s scrape) histogram(family string, match ...string) []bucket {
	by := map[float64]float64{}
	for _, x := range s {
		if x.Name != family+"_bucket" {
			continue
		}
		ok := true
		for i := 0; i+1 < len(match); i += 2 {
			ok = ok && x.Labels[match[i]] == match[i+1]
		}
		if !ok {
			continue
		}
		le, err := strconv.ParseFloat(x.Labels["le"], 64)
		if x.Labels["le"] == "+Inf" {
			le, err = math.Inf(1), nil
		}
		if err == nil {
			by[le] += x.Value
		}
	}
	out := make([]bucket, 0, len(by))
	for le, c := range by {
		out = append(out, bucket{le, c})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].le < out[j].le })
	return out
}

// diffHistogram subtracts an earlier histogram from a later one.
func diffHistogram(a, b []bucket) []bucket {
	prev := map[float64]float64{}
	for _, x := range a {
		prev[x.le] = x.count
	}
	out := make([]bucket, len(b))
	for i, x := range b {
		out[i] = bucket{x.le, x.count - prev[x.le]}
	}
	return out
}

// quantile estimates q from cumulative buckets by linear interpolation
// within the bucket, as Prometheus' histogram_quantile does. It returns
// NaN for an empty histogram and the highest finite bound when q falls in
// +Inf.
func quantile(q float64, bs []bucket) float64 {
	if len(bs) == 0 || bs[len(bs)-1].count == 0 {
		return math.NaN()
	}
	total := bs[len(bs)-1].count
	rank := q * total
	lowerLE, lowerCount := 0.0, 0.0
	for _, b := range bs {
		if b.count >= rank {
			if math.IsInf(b.le, 1) {
				return lowerLE
			}
			if b.count == lowerCount {
				return b.le
			}
			return lowerLE + (b.le-lowerLE)*(rank-lowerCount)/(b.count-lowerCount)
		}
		lowerLE, lowerCount = b.le, b.count
	}
	return lowerLE
}

func histCount(bs []bucket) float64 {
	if len(bs) == 0 {
		return 0
	}
	return bs[len(bs)-1].count
}

// statusWrites counts writes to resource's status subresource.
func statusWrites(m map[string]float64, resource string) float64 {
	r := resource + "/status"
	return m["update "+r] + m["patch "+r] + m["apply "+r]
}

// eventWrites counts Events written (core/v1 and events.k8s.io alike):
// a new Event is a create, a repeated one a patch of its count.
func eventWrites(m map[string]float64) float64 {
	var t float64
	for k, v := range m {
		verb, res, _ := strings.Cut(k, " ")
		if res == "events" && writeVerbs[verb] {
			t += v
		}
	}
	return t
}
