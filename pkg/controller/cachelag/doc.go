// Package cachelag records setpoint's own writes an informer's cache may
// not show yet: CacheLag, the versions our writes replaced, so a pass that
// reads an older one is skipped and woken when the cache catches up; and
// RecentWrites, the children written ahead of their turn, counted as there
// for a short window.
package cachelag
