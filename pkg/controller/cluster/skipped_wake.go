package cluster

import "k8s.io/client-go/tools/cache"

// skippedPassWake wakes a pass skipped because the cache had not caught up
// with its own status write (cachelag.Expectations) as soon as the
// informer delivers the newer version — at Urgent. The skipped pass had
// its turn already: taken from the queue, it found the cache one write
// behind. Woken at Normal, it went back behind every first pass queued
// meanwhile; under the bench's burst of 100 clusters that is what held a
// cluster 16–28 s between CNPG's healthy report and Ready: the pass woken
// by the monitor role applied ran the moment the pass before it (which
// wrote PostgresNotChecked) ended, found the cache behind that write, and
// waited behind the first passes still queued (operator log: "took=0s
// outcome=wait after=250ms", then the Ready pass 26 s later).
func (c *Controller) skippedPassWake() cache.ResourceEventHandler {
	return c.expect.Handler(c.queue.AddUrgent)
}
