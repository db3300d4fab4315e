package v1alpha1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AutoGrowSpec lets setpoint raise the data volumes' size when the data
// Postgres holds (databases and WAL) crosses a share of it. The class and
// the cluster merge field by field. The user's storage.size is never
// changed: the size setpoint asks CloudNativePG for is in
// status.storage.size, and a larger storage.size in the spec wins.
//
// +kubebuilder:validation:XValidation:rule="!has(self.enabled) || !self.enabled || has(self.limit)",message="autoGrow.limit is required when autoGrow is enabled: setpoint never grows a volume without a bound",fieldPath=".limit"
type AutoGrowSpec struct {
	// enabled turns auto-grow on.
	// +optional
	Enabled *bool `json:"enabled,omitempty"`

	// threshold is the usage, in percent of the volume, at which the volume
	// grows. Default 80.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self >= 1 && self <= 99",message="autoGrow.threshold is a percentage of the volume between 1 and 99"
	Threshold *int32 `json:"threshold,omitempty"`

	// increment is how much one grow adds: a percentage of the current size
	// ("20%", 1–999 %) or a quantity ("10Gi"). Default "20%". A grow never
	// goes past limit.
	// +optional
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:XValidation:rule="self.matches('^[1-9][0-9]{0,2}%$') || (!self.endsWith('%') && isQuantity(self) && quantity(self).isGreaterThan(quantity('0')))",message="autoGrow.increment must be a percentage from 1% to 999% (\"20%\") or a positive quantity (\"10Gi\")"
	Increment *string `json:"increment,omitempty"`

	// limit is the size auto-grow never exceeds. Required when enabled.
	// +optional
	// +kubebuilder:validation:XValidation:rule="quantity(string(self)).isGreaterThan(quantity('0'))",message="autoGrow.limit must be greater than zero"
	Limit *resource.Quantity `json:"limit,omitempty"`

	// cooldown is the least time between two grows, for example "10m"
	// (default): a volume resize is slow, and the usage measured right
	// after one still reads the old volume. At least 1s.
	// +optional
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('1s')",message="autoGrow.cooldown must be a duration of at least 1s, for example \"10m\""
	Cooldown *metav1.Duration `json:"cooldown,omitempty"`
}

// StorageStatus reports the volume size setpoint asks CloudNativePG for,
// and auto-grow's decisions. Present once auto-grow is enabled (or has
// grown the volume). It only reports: auto-grow decides from the spec,
// the size the CNPG Cluster runs and the mark setpoint writes on it with
// each grow, so an edited status changes nothing (rewritten next pass).
type StorageStatus struct {
	// size is the size of each data volume setpoint applies to the CNPG
	// Cluster: storage.size, or more after a grow.
	// +optional
	Size *resource.Quantity `json:"size,omitempty"`

	// lastGrowTime is when auto-grow last raised size; the next grow waits
	// for the cooldown after it.
	// +optional
	LastGrowTime *metav1.Time `json:"lastGrowTime,omitempty"`

	// lastGrowFrom is the size before the last grow.
	// +optional
	LastGrowFrom *resource.Quantity `json:"lastGrowFrom,omitempty"`

	// growInFlight is true from a grow until its cooldown has passed, and
	// while CloudNativePG reports PVCs resizing (status.resizingPVC): no
	// new grow starts.
	// +optional
	GrowInFlight bool `json:"growInFlight,omitempty"`
}
