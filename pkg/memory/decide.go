package memory

// sample is what one look at the runtime sees.
type sample struct {
	// allocs is the cumulative number of bytes allocated on the heap.
	allocs uint64
	// kept is freed heap memory the runtime still holds (counted in RSS).
	kept uint64
}

// thresholds decide when a return is worth its cost: a forced collection.
type thresholds struct {
	// quiet: less than this allocated within one period is quiet.
	quiet uint64
	// busy: at least this much allocated since the last return makes a
	// burst worth returning after; it keeps an idle process from paying a
	// collection every period.
	busy uint64
	// minKept: fewer kept bytes are not worth a collection.
	minKept uint64
}

// decider remembers the last sample and the allocation since the last
// return. It is not safe for concurrent use: one goroutine owns it.
type decider struct {
	t           thresholds
	prev        sample
	seen        bool
	sinceReturn uint64
}

// next takes the sample of this period and says whether to return the
// kept pages now.
func (d *decider) next(s sample) bool {
	if !d.seen {
		d.prev, d.seen = s, true
		return false
	}
	delta := s.allocs - d.prev.allocs
	d.prev = s
	d.sinceReturn += delta
	if delta >= d.t.quiet || d.sinceReturn < d.t.busy || s.kept < d.t.minKept {
		return false
	}
	d.sinceReturn = 0
	return true
}
