package v1alpha1

// DurabilityMode is when a commit returns: once its WAL is on the
// primary's disk (Asynchronous), or also on standbys' (Synchronous).
// +kubebuilder:validation:Enum=Asynchronous;Synchronous
type DurabilityMode string

const (
	// DurabilityAsynchronous: a commit returns once the primary has it.
	// A failover may lose the last commits a standby had not received
	// (CloudNativePG's default).
	DurabilityAsynchronous DurabilityMode = "Asynchronous"
	// DurabilitySynchronous: a commit returns once `standbys` standbys
	// confirm they have it too, so a failover to one of them loses no
	// committed row.
	DurabilitySynchronous DurabilityMode = "Synchronous"
)

// DataDurability is what synchronous replication does when fewer
// standbys than it needs are streaming.
// +kubebuilder:validation:Enum=Required;Preferred
type DataDurability string

const (
	// DataDurabilityRequired: commits wait until enough standbys stream
	// again. No committed row is ever only on the primary, and writes
	// block while standbys are missing (condition
	// SynchronousStandbysMissing says so).
	DataDurabilityRequired DataDurability = "Required"
	// DataDurabilityPreferred: CloudNativePG asks only the standbys that
	// are ready, so commits go on while standbys are missing, without
	// the guarantee until they return.
	DataDurabilityPreferred DataDurability = "Preferred"
)

// DurabilitySpec says how many standbys confirm a commit before it
// returns: CloudNativePG's postgresql.synchronous, in setpoint's words
// (docs/guides/high-availability.md#durability). A class's durability is
// replaced whole by a cluster's: mode, standbys and dataDurability go
// together.
// +kubebuilder:validation:XValidation:rule="(has(self.mode) && self.mode == 'Synchronous') || (!has(self.standbys) && !has(self.dataDurability))",message="durability.standbys and durability.dataDurability apply to mode Synchronous only"
type DurabilitySpec struct {
	// mode is Asynchronous (the default) or Synchronous.
	// +optional
	Mode DurabilityMode `json:"mode,omitempty"`

	// standbys is how many standbys must confirm each commit (any of the
	// cluster's standbys: a quorum). Default 1. The cluster needs more
	// instances than this.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=9
	Standbys *int32 `json:"standbys,omitempty"`

	// dataDurability is Required (the default: commits wait while fewer
	// standbys stream) or Preferred (commits go on with the standbys
	// there are).
	// +optional
	DataDurability DataDurability `json:"dataDurability,omitempty"`
}

// SynchronousStandbys is the number of standbys durability asks to
// confirm each commit: 0 when asynchronous.
func (d *DurabilitySpec) SynchronousStandbys() int32 {
	if d == nil || d.Mode != DurabilitySynchronous {
		return 0
	}
	if d.Standbys == nil {
		return 1
	}
	return *d.Standbys
}
