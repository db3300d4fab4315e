package cnpgsim

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/client-go/tools/cache"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

// volumes is what the stand-in remembers of a Cluster's data volumes: the
// size they were provisioned or last resized to, and a resize in flight.
// There are no PVCs; the server's data directory is never bounded by the
// size (what Postgres reports as its size is its real data, whatever the
// volume would hold).
type volumes struct {
	size     string    // spec.storage.size the volumes have
	target   string    // a larger size being resized to, "" when none
	resizeAt time.Time // when the resize in flight completes
}

// resizeVolumes follows spec.storage.size as CNPG does with a storage
// class that allows expansion: a larger size resizes every instance's
// PVC online (no restart), taking Options.ResizeDelay, while status lists
// them in resizingPVC. A smaller size never arrives (CNPG's webhook
// refuses a shrink); were it to, it is ignored, as Kubernetes refuses to
// shrink a PVC. It returns how long until the resize in flight completes.
func (r *clusterRun) resizeVolumes(now time.Time) time.Duration {
	v, want := &r.inst.volumes, storageSize(r.cluster)
	if v.size == "" {
		v.size = want // provisioned at this size
		return 0
	}
	if want != v.target && larger(want, v.size) {
		v.target, v.resizeAt = want, now.Add(r.s.opts.ResizeDelay)
	}
	if v.target == "" {
		return 0
	}
	if wait := v.resizeAt.Sub(now); wait > 0 {
		return wait
	}
	v.size, v.target = v.target, ""
	return 0
}

// pvcStatus reports the instances' PVCs (named after the instances, as
// CNPG names them) as healthy or resizing.
func (r *clusterRun) pvcStatus(st *cnpgv1.ClusterStatus) {
	var names []string
	for _, serial := range r.inst.instanceSerials(r.cluster.Spec.Instances) {
		names = append(names, fmt.Sprintf("%s-%d", r.cluster.Name, serial))
	}
	st.HealthyPVC, st.ResizingPVC = names, nil
	if r.inst.volumes.target != "" {
		st.HealthyPVC, st.ResizingPVC = nil, names
	}
}

// VolumeSize is the size a Cluster's volumes have (after any resize that
// completed); "" when the Cluster has no server yet.
func (s *Simulator) VolumeSize(namespace, name string) string {
	inst := s.instance(cache.ObjectName{Namespace: namespace, Name: name})
	if inst == nil {
		return ""
	}
	inst.mu.Lock()
	defer inst.mu.Unlock()
	return inst.volumes.size
}

func storageSize(c *cnpgv1.Cluster) string {
	if c.Spec.Storage == nil {
		return ""
	}
	return c.Spec.Storage.Size
}

// larger compares sizes as quantities; an unparsable one is never larger.
func larger(a, b string) bool {
	qa, errA := resource.ParseQuantity(a)
	qb, errB := resource.ParseQuantity(b)
	return errA == nil && errB == nil && qa.Cmp(qb) > 0
}
