package alerts

import (
	"fmt"
	"regexp"
	"strings"
)

// Reference is what the operator exports: each series name with the
// labels it carries, from the generated metrics reference.
type Reference struct {
	series map[string]map[string]bool
	// prefixes are families the reference names by prefix only (the
	// standard Go runtime and process metrics): any name under them, with
	// no labels of their own.
	prefixes []string
}

// A row of the reference's table: | `name` | type | `l1`, `l2` | help |.
var referenceRow = regexp.MustCompile("^\\| `([a-zA-Z_:][a-zA-Z0-9_:]*)` \\| (counter|gauge|histogram) \\| ([^|]*) \\|")

// labelName is one `label` of a row.
var labelName = regexp.MustCompile("`([a-zA-Z_][a-zA-Z0-9_]*)`")

// standardPrefixes: the page's closing line names these families.
var standardPrefixes = regexp.MustCompile("\\(`(go)_\\*`, `(process)_\\*`\\)")

// ParseReference reads docs/reference/metrics.md. A histogram is the
// series Prometheus stores of it: _bucket (with le), _sum and _count.
func ParseReference(md []byte) (Reference, error) {
	ref := Reference{series: map[string]map[string]bool{}}
	for _, line := range strings.Split(string(md), "\n") {
		if m := standardPrefixes.FindStringSubmatch(line); m != nil {
			ref.prefixes = append(ref.prefixes, m[1]+"_", m[2]+"_")
		}
		m := referenceRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		labels := map[string]bool{}
		for _, l := range labelName.FindAllStringSubmatch(m[3], -1) {
			labels[l[1]] = true
		}
		if m[2] != "histogram" {
			ref.series[m[1]] = labels
			continue
		}
		for _, suffix := range []string{"_sum", "_count", "_bucket"} {
			ls := map[string]bool{}
			for l := range labels {
				ls[l] = true
			}
			if suffix == "_bucket" {
				ls["le"] = true
			}
			ref.series[m[1]+suffix] = ls
		}
	}
	if len(ref.series) == 0 {
		return ref, fmt.Errorf("no metric in the reference")
	}
	return ref, nil
}

// Labels are the labels of series name; ok is false when the operator
// does not export it.
func (r Reference) Labels(name string) (labels map[string]bool, ok bool) {
	if ls, ok := r.series[name]; ok {
		return ls, true
	}
	for _, p := range r.prefixes {
		if strings.HasPrefix(name, p) {
			return map[string]bool{}, true
		}
	}
	return nil, false
}
