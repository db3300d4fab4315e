package main

import (
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

// sample is one line of the Prometheus text exposition format.
type sample struct {
	name   string
	labels map[string]string
	value  float64
}

// scrape is every sample of one /metrics read.
type scrape []sample

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
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	return parseText(string(body)), nil
}

func parseText(text string) scrape {
	var out scrape
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		s := sample{labels: map[string]string{}}
		var rest string
		if i := strings.IndexByte(line, '{'); i >= 0 {
			s.name = line[:i]
			j := strings.LastIndexByte(line, '}')
			if j < i {
				continue
			}
			parseLabels(line[i+1:j], s.labels)
			rest = strings.TrimSpace(line[j+1:])
		} else {
			name, r, ok := strings.Cut(line, " ")
			if !ok {
				continue
			}
			s.name, rest = name, strings.TrimSpace(r)
		}
		if f := strings.Fields(rest); len(f) > 0 {
			v, err := strconv.ParseFloat(f[0], 64)
			if err != nil {
				continue
			}
			s.value = v
			out = append(out, s)
		}
	}
	return out
}

// parseLabels reads k="v",k2="v2" with Prometheus escapes.
func parseLabels(text string, into map[string]string) {
	for len(text) > 0 {
		eq := strings.IndexByte(text, '=')
		if eq < 0 || eq+1 >= len(text) || text[eq+1] != '"' {
			return
		}
		key := strings.TrimSpace(strings.TrimLeft(text[:eq], ","))
		var val strings.Builder
		i := eq + 2
		for ; i < len(text); i++ {
			c := text[i]
			if c == '\\' && i+1 < len(text) {
				i++
				switch text[i] {
				case 'n':
					val.WriteByte('\n')
				default:
					val.WriteByte(text[i])
				}
				continue
			}
			if c == '"' {
				break
			}
			val.WriteByte(c)
		}
		into[key] = val.String()
		text = strings.TrimLeft(text[min(i+1, len(text)):], ", ")
	}
}

// sum adds the samples of a family whose labels include every pair of
// match ("key", "value", ...).
func (s scrape) sum(family string, match ...string) float64 {
	var total float64
	for _, x := range s {
		if x.name != family {
			continue
		}
		ok := true
		for i := 0; i+1 < len(match); i += 2 {
			ok = ok && x.labels[match[i]] == match[i+1]
		}
		if ok {
			total += x.value
		}
	}
	return total
}

// writeVerbs are the verbs that change state.
var writeVerbs = map[string]bool{"create": true, "update": true, "patch": true, "apply": true, "delete": true}

// apiCounts is setpoint_api_requests_total summed over codes, keyed
// "verb resource".
func (s scrape) apiCounts() map[string]float64 {
	out := map[string]float64{}
	for _, x := range s {
		if x.name == "setpoint_api_requests_total" {
			out[x.labels["verb"]+" "+x.labels["resource"]] += x.value
		}
	}
	return out
}

// apiErrors counts requests whose code is not a 2xx text.
func (s scrape) apiErrors() map[string]float64 {
	out := map[string]float64{}
	for _, x := range s {
		if x.name != "setpoint_api_requests_total" || x.value == 0 {
			continue
		}
		switch x.labels["code"] {
		case "OK", "Created", "Accepted", "No Content":
			continue
		}
		out[x.labels["verb"]+" "+x.labels["resource"]+" "+x.labels["code"]] += x.value
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
		if x.name != family+"_bucket" {
			continue
		}
		ok := true
		for i := 0; i+1 < len(match); i += 2 {
			ok = ok && x.labels[match[i]] == match[i+1]
		}
		if !ok {
			continue
		}
		le, err := strconv.ParseFloat(x.labels["le"], 64)
		if x.labels["le"] == "+Inf" {
			le, err = math.Inf(1), nil
		}
		if err == nil {
			by[le] += x.value
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
