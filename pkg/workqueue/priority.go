package workqueue

import "sync"

// Priority orders the keys waiting in a Queue: higher first, first come
// first served within a priority.
type Priority int

const (
	// Later is for a periodic resync: a pass that only re-examines an
	// object nobody changed. Under load a resync puts every object in the
	// queue at once; at Normal a new object created in that moment waited
	// behind all of them (1,100 passes at the bench's 100 × 10). Later keys go once
	// nothing else waits, so a resync is delayed while the operator is
	// busy, never dropped.
	Later Priority = iota
	// Normal is Add's: new objects, changes, rechecks.
	Normal
	// Soon is for a key whose first pass can go on now that something it
	// depends on is ready: a database whose cluster became Ready. Keys
	// woken together stay together, so the databases of one cluster are
	// started together and their role claims reach the cluster together.
	Soon
	// Urgent is for a key woken because something it waits on moved: a
	// database whose role was reconciled. Finishing what is under way
	// before starting new work keeps the work in progress small: under a
	// burst of a thousand new objects, a database whose role just became
	// ready would otherwise queue behind every first pass still to come,
	// and its CNPG Database — the slow part, which CNPG does on its own —
	// would start a minute later than it can.
	Urgent
)

// priorities is the priority each key was added with, until it is handed
// out. A key with no mark — added by the delaying queue, a recheck or a
// retry — counts as Normal; one that a resync marked Later meanwhile runs
// with the resync, at Later.
type priorities struct {
	mu   sync.Mutex
	keys map[Key]Priority
}

// raise marks k with p unless it is marked higher already. Later marks
// only a key with no mark: added at Normal while waiting or while its pass
// runs, it stays Normal.
func (u *priorities) raise(k Key, p Priority) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.keys == nil {
		u.keys = map[Key]Priority{}
	}
	if cur, ok := u.keys[k]; !ok || p > cur {
		u.keys[k] = p
	}
}

func (u *priorities) of(k Key) Priority {
	u.mu.Lock()
	defer u.mu.Unlock()
	if p, ok := u.keys[k]; ok {
		return p
	}
	return Normal
}

func (u *priorities) clear(k Key) {
	u.mu.Lock()
	defer u.mu.Unlock()
	delete(u.keys, k)
}

// priorityFIFO is the queue under client-go's workqueue (it implements
// workqueue.Queue, whose methods client-go calls under its own lock): one
// FIFO per priority, highest first. A key waiting at one priority and then
// raised moves up (Touch); its old place is skipped when reached. A key
// waiting at Later and added at Normal moves up the same way.
type priorityFIFO struct {
	fifos [Urgent + 1][]Key
	where map[Key]Priority // the FIFO each waiting key counts in
	prio  *priorities
}

func newPriorityFIFO(p *priorities) *priorityFIFO {
	return &priorityFIFO{where: map[Key]Priority{}, prio: p}
}

func (q *priorityFIFO) Push(k Key) {
	p := q.prio.of(k)
	q.fifos[p] = append(q.fifos[p], k)
	q.where[k] = p
}

// Touch is called for a key added again while it waits.
func (q *priorityFIFO) Touch(k Key) {
	if p := q.prio.of(k); p > q.where[k] {
		q.fifos[p] = append(q.fifos[p], k)
		q.where[k] = p
	}
}

func (q *priorityFIFO) Len() int { return len(q.where) }

// Pop returns the first live key of the highest priority; client-go calls
// it only when Len is positive.
func (q *priorityFIFO) Pop() Key {
	for p := Urgent; p >= Later; p-- {
		for len(q.fifos[p]) > 0 {
			k := q.fifos[p][0]
			q.fifos[p][0] = Key{}
			q.fifos[p] = q.fifos[p][1:]
			if at, ok := q.where[k]; ok && at == p {
				delete(q.where, k)
				q.prio.clear(k)
				return k
			}
		}
	}
	return Key{}
}
