package main

import "runtime"

// applyMemProfileRate turns off the runtime's sampling of allocations for
// the heap profile when no profiling endpoint is served (addr "" or "0",
// as --profiling-bind-address): nothing could read the samples, and the
// runtime keeps every sampled call stack for the life of the process, in
// a hash table of 1.4 MiB whose pages the stacks touch at random. With the
// endpoint on, the rate stays as it is (Go's default, or GODEBUG's
// memprofilerate). Called as soon as the flags are parsed, before the
// operator allocates; the package initializers' few samples are kept.
func applyMemProfileRate(profilingAddr string) {
	if profilingAddr == "" || profilingAddr == "0" {
		runtime.MemProfileRate = 0
	}
}
