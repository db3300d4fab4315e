package informers

import (
	"hash/maphash"
	"maps"
)

// Objects of one database — its Secrets, ConfigMap, DatabaseRoles and CNPG
// Database — carry the same labels, and most of setpoint's children the
// same annotations (a deletion policy). Interning their strings still
// left each object a map of its own: at 1,000 databases the labels and
// annotations maps were the largest single item of the operator's heap.
// The interner keeps one map per distinct content instead. Cached objects
// are read-only (a writer copies first: DeepCopy copies maps), so a map
// shared by many objects is as safe as a string shared by many.
//
// The table is bounded like the string table (maxInternedMaps, then it
// starts over); maps with content of their own (a timestamp annotation)
// cost one entry until then.
const maxInternedMaps = 4096

// sharedMap returns the interner's map with m's content, interning m's
// strings into a new one the first time. The caller holds mu.
func (in *interner) sharedMap(m map[string]string) map[string]string {
	if len(m) == 0 {
		return m
	}
	if in.mapSeed == (maphash.Seed{}) {
		in.mapSeed = maphash.MakeSeed()
	}
	h := contentHash(in.mapSeed, m)
	if s, ok := in.maps[h]; ok && maps.Equal(s, m) {
		return s
	}
	out := in.stringMap(m)
	if in.maps == nil || len(in.maps) >= maxInternedMaps {
		in.maps = make(map[uint64]map[string]string, 256)
	}
	// A hash two contents share keeps the newer: the older map stays
	// with the objects that hold it, it is only no longer handed out.
	in.maps[h] = out
	return out
}

// contentHash hashes m's entries independently of their order (a sum of
// each entry's hash): equal maps hash equal.
func contentHash(seed maphash.Seed, m map[string]string) uint64 {
	var sum uint64
	var h maphash.Hash
	h.SetSeed(seed)
	for k, v := range m {
		h.Reset()
		h.WriteString(k)
		h.WriteByte(0)
		h.WriteString(v)
		sum += h.Sum64()
	}
	return sum
}
