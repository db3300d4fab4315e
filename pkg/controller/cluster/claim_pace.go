package cluster

import (
	"sync"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

const (
	// claimBurstWindow: a claim that comes within this long of the
	// cluster's previous one is part of a burst (databases being created
	// one after another, each claiming as its first pass ends).
	claimBurstWindow = 2 * time.Second
	// burstBatchDelay is how long a claim in a burst waits, so that the
	// burst reaches the cluster in passes at most this far apart — each
	// pass costs an apply of managed.roles and a status write — instead
	// of one pass per database. A lone claim (the usual case once the
	// cluster runs) still waits only roleBatchDelay.
	burstBatchDelay = time.Second
)

// claimPace remembers when each cluster last got a claim.
type claimPace struct {
	mu   sync.Mutex
	last map[workqueue.Key]time.Time
	now  func() time.Time // time.Now when nil
}

// delay is how long the claim arriving now for cluster k waits.
func (p *claimPace) delay(k workqueue.Key) time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if p.now != nil {
		now = p.now()
	}
	prev, seen := p.last[k]
	if p.last == nil {
		p.last = map[workqueue.Key]time.Time{}
	}
	p.last[k] = now
	if seen && now.Sub(prev) < claimBurstWindow {
		return burstBatchDelay
	}
	return roleBatchDelay
}

// forget drops cluster k (gone).
func (p *claimPace) forget(k workqueue.Key) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.last, k)
}
