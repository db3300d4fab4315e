// Package informers is the client-go kit both controllers stand on: the
// informer factories and what they keep of each object (trimmed, its
// repeated strings and labels maps shared, a ConfigMap's data as a
// digest), the indexes the controllers look children
// up by, the routing of a child's event to its owner's key, and the
// registration of handlers whose sync the controllers wait for. The record
// of our own writes a cache has not shown yet is in cachelag.
package informers
