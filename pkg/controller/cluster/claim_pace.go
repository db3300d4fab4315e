package cluster

import (
	"sync"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

// rolesApplySpacing is the least time between two applies of a cluster's
// managed.roles while claims keep coming: claims that arrive within this
// long of the last apply wait for its end, so a burst of new databases
// (started together when their cluster became Ready) reaches the cluster
// in passes about this far apart — each costs an apply and a status write
// — instead of one pass per database. A claim that comes later (the usual
// case once the cluster runs) still waits only roleBatchDelay.
const rolesApplySpacing = time.Second

// claimPace remembers when each cluster last applied its managed roles. A
// nil claimPace (in tests of a single pass) spaces nothing.
type claimPace struct {
	mu   sync.Mutex
	last map[workqueue.Key]time.Time
	// first is when the claims not yet applied started to come.
	first map[workqueue.Key]time.Time
	now   func() time.Time // time.Now when nil
}

func (p *claimPace) clock() time.Time {
	if p.now != nil {
		return p.now()
	}
	return time.Now()
}

// applied records that cluster k applied its managed roles just now.
func (p *claimPace) applied(k workqueue.Key) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.last == nil {
		p.last = map[workqueue.Key]time.Time{}
	}
	p.last[k] = p.clock()
	delete(p.first, k)
}

// gather is how long a claim arriving now for cluster k may still wait for
// others (claimGatherLimit from the first claim not yet applied). A window
// long past without an apply (its claims changed nothing) starts again.
func (p *claimPace) gather(k workqueue.Key) time.Duration {
	if p == nil {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.clock()
	first, ok := p.first[k]
	if !ok || now.Sub(first) > claimGatherLimit {
		if p.first == nil {
			p.first = map[workqueue.Key]time.Time{}
		}
		first = now
		p.first[k] = first
	}
	return first.Add(claimGatherLimit).Sub(now)
}

// delay is how long a claim arriving now for cluster k waits: until
// rolesApplySpacing after its last apply, and at least roleBatchDelay.
func (p *claimPace) delay(k workqueue.Key) time.Duration {
	if p == nil {
		return roleBatchDelay
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	last, ok := p.last[k]
	if !ok {
		return roleBatchDelay
	}
	return max(roleBatchDelay, last.Add(rolesApplySpacing).Sub(p.clock()))
}

// forget drops cluster k (gone).
func (p *claimPace) forget(k workqueue.Key) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.last, k)
	delete(p.first, k)
}
