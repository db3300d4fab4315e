package cachelag

// Seen is what an informer's cache shows of one object when a pass asks
// whether it may trust it: nothing (Absent), or the object at a
// resourceVersion (At). A value, not the object, so that a typed nil
// pointer cannot pass for an object the cache holds.
type Seen struct {
	present bool
	version string
}

// Absent: the cache holds no such object.
var Absent = Seen{}

// At: the cache holds the object at resourceVersion rv.
func At(rv string) Seen { return Seen{present: true, version: rv} }
