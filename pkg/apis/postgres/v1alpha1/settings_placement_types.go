package v1alpha1

import corev1 "k8s.io/api/core/v1"

// AntiAffinity is how strongly a cluster's instances avoid each other's
// topology domain.
// +kubebuilder:validation:Enum=Preferred;Required;Disabled
type AntiAffinity string

const (
	// AntiAffinityPreferred spreads instances over the domains when it
	// can, and still schedules when it cannot (CloudNativePG's default).
	AntiAffinityPreferred AntiAffinity = "Preferred"
	// AntiAffinityRequired never puts two instances in one domain: an
	// instance with no free domain stays Pending.
	AntiAffinityRequired AntiAffinity = "Required"
	// AntiAffinityDisabled lets instances share a domain.
	AntiAffinityDisabled AntiAffinity = "Disabled"
)

// PlacementSpec says where a cluster's instances run: CloudNativePG's
// affinity, topologySpreadConstraints and priorityClassName, in
// setpoint's words (docs/guides/classes.md#placement). Unset fields keep
// CloudNativePG's defaults: preferred anti-affinity per node.
// +kubebuilder:validation:XValidation:rule="!has(self.topologyKey) || !has(self.antiAffinity) || self.antiAffinity != 'Disabled'",message="placement.topologyKey is the anti-affinity's domain: it means nothing with antiAffinity Disabled",fieldPath=".topologyKey"
type PlacementSpec struct {
	// antiAffinity is how strongly instances avoid sharing a topology
	// domain (topologyKey): Preferred (the default), Required or
	// Disabled. Required on fewer domains than instances leaves
	// instances Pending.
	// +optional
	AntiAffinity AntiAffinity `json:"antiAffinity,omitempty"`

	// topologyKey is the node label whose values are the domains the
	// anti-affinity spreads instances over: kubernetes.io/hostname (the
	// default: one instance per node) or topology.kubernetes.io/zone.
	// +optional
	// +kubebuilder:validation:MaxLength=317
	// +kubebuilder:validation:Pattern=`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$`
	TopologyKey string `json:"topologyKey,omitempty"`

	// nodeSelector are node labels an instance's node must have; merged
	// key by key with the class's.
	// +optional
	// +kubebuilder:validation:MaxProperties=32
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`

	// tolerations let instances run on nodes with matching taints (a
	// cluster's list replaces its class's).
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`

	// topologySpreadConstraints spread instances over domains, beside the
	// anti-affinity (a cluster's list replaces its class's). Their label
	// selectors should select the cluster's instances
	// (cnpg.io/cluster: <name>, cnpg.io/podRole: instance).
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=8
	TopologySpreadConstraints []corev1.TopologySpreadConstraint `json:"topologySpreadConstraints,omitempty"`

	// priorityClassName is the PriorityClass of the instances' Pods.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	PriorityClassName string `json:"priorityClassName,omitempty"`
}
