package workqueue

import "sync"

// urgency is the set of keys whose next pass should come before the keys
// queued in the ordinary way: those woken because something they wait on
// moved (a role reconciled, a cluster Ready), not because they are new.
// Finishing what is under way before starting new work keeps the work in
// progress small: under a burst of a thousand new objects, a database
// whose role just became ready would otherwise queue behind every first
// pass still to come, and its CNPG Database — the slow part, which CNPG
// does on its own — would start a minute later than it can.
type urgency struct {
	mu   sync.Mutex
	keys map[Key]bool
}

func (u *urgency) mark(k Key) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.keys == nil {
		u.keys = map[Key]bool{}
	}
	u.keys[k] = true
}

// take reports whether k is marked, and unmarks it.
func (u *urgency) take(k Key) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	ok := u.keys[k]
	delete(u.keys, k)
	return ok
}

func (u *urgency) has(k Key) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.keys[k]
}

// priorityFIFO is the queue under client-go's workqueue (it implements
// workqueue.Queue, whose methods client-go calls under its own lock): two
// FIFOs, urgent keys first. A key queued in the ordinary way and then
// marked urgent moves up (Touch); its old place is skipped when reached.
type priorityFIFO struct {
	urgent, normal []Key
	where          map[Key]*[]Key // the FIFO each queued key counts in
	u              *urgency
}

func newPriorityFIFO(u *urgency) *priorityFIFO {
	return &priorityFIFO{where: map[Key]*[]Key{}, u: u}
}

func (p *priorityFIFO) Push(k Key) {
	q := &p.normal
	if p.u.has(k) {
		q = &p.urgent
	}
	*q = append(*q, k)
	p.where[k] = q
}

// Touch is called for a key added again while it waits.
func (p *priorityFIFO) Touch(k Key) {
	if p.where[k] == &p.normal && p.u.has(k) {
		p.urgent = append(p.urgent, k)
		p.where[k] = &p.urgent
	}
}

func (p *priorityFIFO) Len() int { return len(p.where) }

// Pop returns the first live key, urgent ones first; client-go calls it
// only when Len is positive.
func (p *priorityFIFO) Pop() Key {
	for _, q := range []*[]Key{&p.urgent, &p.normal} {
		for len(*q) > 0 {
			k := (*q)[0]
			(*q)[0] = Key{}
			*q = (*q)[1:]
			if p.where[k] == q {
				delete(p.where, k)
				p.u.take(k)
				return k
			}
		}
	}
	return Key{}
}
