package informers

import (
	"crypto/sha256"
	"maps"
	"slices"
)

// setpoint reads its ConfigMaps' data for one thing only: whether it is
// what setpoint would write (drift). A database's connection ConfigMap
// holds a dozen keys, so at 1,000 databases their maps were a megabyte
// of the cache. The cache keeps a digest of the data instead, under a key
// no ConfigMap can have (a ConfigMap key cannot contain '/'). Readers
// never see that key: the ConfigMap lister hands out CachedConfigMaps
// (configmap_cached.go), which compare the digest and have no Data.
const dataDigestKey = "setpoint.dev/data-sha256"

// digestData replaces data by its digest. Data that is a digest already
// stays as it is: client-go may hand an object to the transform twice
// (its contract asks transforms to be idempotent), and the digest of a
// digest would never match — each pass would rewrite the ConfigMap.
func digestData(data map[string]string) map[string]string {
	if len(data) == 0 || isDigest(data) {
		return data
	}
	return map[string]string{dataDigestKey: dataDigest(data)}
}

func isDigest(data map[string]string) bool {
	_, ok := data[dataDigestKey]
	return ok && len(data) == 1
}

// dataDigest is the SHA-256 of data's keys and values in key order, as
// raw bytes: 32 bytes, never interned.
func dataDigest(data map[string]string) string {
	h := sha256.New()
	for _, k := range slices.Sorted(maps.Keys(data)) {
		h.Write([]byte(k))
		h.Write([]byte{0})
		h.Write([]byte(data[k]))
		h.Write([]byte{0})
	}
	return string(h.Sum(nil))
}
