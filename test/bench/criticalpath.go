package main

import (
	"bufio"
	"os"
	"regexp"
	"strings"
	"time"
)

// The passes on a stream database's critical path: those that started
// between its create and the moment the readiness watch saw it Ready. A
// pass after that (the echo of its own status write, a resync) costs the
// operator but not the database's latency. The metrics are per queue, so
// these are read per key from the operator's log: at -v=4 every pass logs
// its outcome with the key and its length (pkg/workqueue), the line's time
// being the pass's end.

// passLogVerbosity is the operator verbosity at which every pass logs its
// outcome; the bench runs its operators there unless -pass-log=false.
const passLogVerbosity = "--v=4"

// passLine matches a pass's outcome line: klog's header (month, day,
// time), the key and the fields after it.
var passLine = regexp.MustCompile(`^[IWE](\d{4} \d{2}:\d{2}:\d{2}\.\d{6}) .*queue\.go:\d+\] .* key="([^"]+)"(.*)$`)

var (
	outcomeField = regexp.MustCompile(` outcome="([a-z]+)"`)
	tookField    = regexp.MustCompile(` took="([^"]+)"`)
)

// pass is one pass of a key, placed by its log line.
type pass struct {
	start   time.Time
	outcome string
}

// readPasses returns the passes of the keys in namespace ns whose name
// starts with prefix, by key name, from the operator's log at path. The
// log's times carry no year; year is the bench's.
func readPasses(path, ns, prefix string, year int, loc *time.Location) (map[string][]pass, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string][]pass{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		m := passLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		name, ok := strings.CutPrefix(m[2], ns+"/")
		if !ok || !strings.HasPrefix(name, prefix) {
			continue
		}
		o, t := outcomeField.FindStringSubmatch(m[3]), tookField.FindStringSubmatch(m[3])
		if o == nil || t == nil {
			continue
		}
		end, err := time.ParseInLocation("0102 15:04:05.000000", m[1], loc)
		if err != nil {
			continue
		}
		end = end.AddDate(year-end.Year(), 0, 0)
		took, err := time.ParseDuration(t[1])
		if err != nil {
			continue
		}
		out[name] = append(out[name], pass{start: end.Add(-took), outcome: o[1]})
	}
	return out, sc.Err()
}

// criticalPasses counts, over the tracked databases that reached Ready,
// the passes that started between their create and their Ready, by
// outcome; n is the number of databases counted.
func criticalPasses(passes map[string][]pass, r *readiness) (byOutcome map[string]float64, n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	byOutcome = map[string]float64{}
	for key, done := range r.ready {
		name, ok := strings.CutPrefix(key, "database/")
		if !ok {
			continue
		}
		at, ok := r.applied[key]
		if !ok {
			continue
		}
		n++
		for _, p := range passes[name] {
			if !p.start.Before(at) && p.start.Before(done) {
				byOutcome[p.outcome]++
			}
		}
	}
	return byOutcome, n
}

// criticalPassFigures adds the passes per stream database on its critical
// path, in all and by outcome.
func criticalPassFigures(fig map[string]float64, byOutcome map[string]float64, n int) {
	if n == 0 {
		return
	}
	var all float64
	for _, v := range byOutcome {
		all += v
	}
	fig["stream_critical_passes_per_database"] = all / float64(n)
	for _, o := range passOutcomes {
		if v := byOutcome[o]; v > 0 || o == "success" || o == "wait" || o == "retry" {
			fig["stream_critical_passes_per_database_"+o] = v / float64(n)
		}
	}
}
