// Package informers is the client-go kit both controllers stand on: the
// informer factories and what they keep of each object (trimmed, its
// repeated strings and labels maps shared, a ConfigMap's data as a
// digest), the indexes the controllers look children
// up by, the routing of a child's event to its owner's key, and the
// registration of handlers whose sync the controllers wait for. Whether
// the cache has caught up with our own writes is cachelag's to say; what
// is here changes what a cache keeps or which events wake a pass, never
// whether a pass may trust what it reads.
package informers
