// Package promsample reads a Prometheus text exposition into flat samples
// for tests and the benchmark: one Sample per line of the text format, named
// as that format names them (a histogram's series as _bucket with le, _sum
// and _count; a summary's as quantiles, _sum and _count). The parsing is
// prometheus/common's expfmt, so escapes, comments and timestamps are read
// as Prometheus reads them.
package promsample

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Sample is one value of one series.
type Sample struct {
	Name   string
	Labels map[string]string
	Value  float64
}

// Parse reads a text exposition. The samples are sorted by name; series
// of one family keep the exposition's order.
func Parse(r io.Reader) ([]Sample, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(r)
	if err != nil {
		return nil, fmt.Errorf("parse metrics: %w", err)
	}
	names := make([]string, 0, len(families))
	for name := range families {
		names = append(names, name)
	}
	sort.Strings(names)
	var out []Sample
	for _, name := range names {
		for _, m := range families[name].GetMetric() {
			out = append(out, flatten(name, families[name].GetType(), m)...)
		}
	}
	return out, nil
}

// flatten turns one series into the samples its text lines carry.
func flatten(name string, typ dto.MetricType, m *dto.Metric) []Sample {
	labels := map[string]string{}
	for _, l := range m.GetLabel() {
		labels[l.GetName()] = l.GetValue()
	}
	one := func(suffix string, v float64, extra ...string) Sample {
		ls := make(map[string]string, len(labels)+1)
		for k, v := range labels {
			ls[k] = v
		}
		if len(extra) == 2 {
			ls[extra[0]] = extra[1]
		}
		return Sample{Name: name + suffix, Labels: ls, Value: v}
	}
	switch typ {
	case dto.MetricType_COUNTER:
		return []Sample{one("", m.GetCounter().GetValue())}
	case dto.MetricType_GAUGE:
		return []Sample{one("", m.GetGauge().GetValue())}
	case dto.MetricType_HISTOGRAM:
		h := m.GetHistogram()
		var out []Sample
		sawInf := false
		for _, b := range h.GetBucket() {
			sawInf = sawInf || math.IsInf(b.GetUpperBound(), 1)
			out = append(out, one("_bucket", float64(b.GetCumulativeCount()), "le", formatBound(b.GetUpperBound())))
		}
		if !sawInf {
			out = append(out, one("_bucket", float64(h.GetSampleCount()), "le", "+Inf"))
		}
		return append(out, one("_sum", h.GetSampleSum()), one("_count", float64(h.GetSampleCount())))
	case dto.MetricType_SUMMARY:
		s := m.GetSummary()
		var out []Sample
		for _, q := range s.GetQuantile() {
			out = append(out, one("", q.GetValue(), "quantile", strconv.FormatFloat(q.GetQuantile(), 'g', -1, 64)))
		}
		return append(out, one("_sum", s.GetSampleSum()), one("_count", float64(s.GetSampleCount())))
	default:
		return []Sample{one("", m.GetUntyped().GetValue())}
	}
}

func formatBound(f float64) string {
	if math.IsInf(f, 1) {
		return "+Inf"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// Sum adds the values of the samples named name whose labels include every
// pair of match ("key", "value", ...).
func Sum(samples []Sample, name string, match ...string) float64 {
	var total float64
	for _, s := range samples {
		if s.Name == name && s.Matches(match...) {
			total += s.Value
		}
	}
	return total
}

// Matches reports whether the sample's labels include every pair of match.
func (s Sample) Matches(match ...string) bool {
	for i := 0; i+1 < len(match); i += 2 {
		if s.Labels[match[i]] != match[i+1] {
			return false
		}
	}
	return true
}
