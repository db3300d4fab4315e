// Package informers is the client-go kit both controllers stand on: the
// informer factories and what they keep of each object (trimmed, its
// repeated strings and labels maps shared, a ConfigMap's data as a
// digest), the indexes the controllers look children
// up by, the routing of a child's event to its owner's key, and the
// registration of handlers whose sync the controllers wait for. Whether
// the cache has caught up with our own writes is cachelag's to say; what
// is here changes what a cache keeps or which events wake a pass, never
// whether a pass may trust what it reads.
//
// A cached object whose trimming changes what a field means is read
// through a type of its own, never the API type
// (docs/adr/0014-a-cached-object-that-means-otherwise-has-a-type.md):
// a ConfigMap's Data holds a digest in the cache, so ConfigMaps are read
// through ConfigMapLister as CachedConfigMap, which has no Data, only
// DataEqual.
// The other trims drop fields nobody reads, and keep the API type: every
// kind's managedFields and kubectl's last-applied annotation
// (trimForCache), a DatabaseRole's status.conditions (intern.go), a
// PgBouncer Deployment's Pod template (trimDeployment), and all of a CNPG
// Pod but its name, labels, phase and PodScheduled condition (trimPod:
// the provisioner reads only whether the scheduler can place it), and
// all of a CNPG instance Role but its name, labels and one rule naming
// the Secrets it lets read (trimRole: read only through
// cnpgverdict.ReadableSecrets, which reads the same of the trimmed Role
// as of the whole). Each
// says so where
// it is dropped; a reader of one of them needs a type of its own first.
package informers
