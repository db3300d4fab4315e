// Package memory gives the heap's freed pages back to the operating system
// once the operator goes quiet after a burst of work.
//
// Go's collector frees garbage but keeps the freed pages for the next
// allocations; its background scavenger returns them only slowly and only
// down to about 10% above the next heap goal. An operator works in bursts
// (a thousand databases applied at once, a resync) and then sits idle for
// hours, so after a burst it would hold several MiB of pages it no longer
// uses: RSS that an idle process should not have. Returner watches the
// runtime's allocation counter and, when allocation has been quiet for a
// period after a burst and enough freed pages are kept, returns them
// (debug.FreeOSMemory: one collection and a full scavenge).
package memory
