package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// PodMonitor tells a Prometheus run by the Prometheus Operator which pods
// to scrape, and on which port.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type PodMonitor struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec PodMonitorSpec `json:"spec"`
}

// PodMonitorSpec is the subset setpoint sets.
type PodMonitorSpec struct {
	// selector picks the pods to scrape in the PodMonitor's namespace.
	Selector metav1.LabelSelector `json:"selector"`
	// podMetricsEndpoints are the pods' endpoints to scrape. The upstream
	// schema declares no list type, so the list is atomic.
	//
	// +listType=atomic
	PodMetricsEndpoints []PodMetricsEndpoint `json:"podMetricsEndpoints,omitempty"`
}

// PodMetricsEndpoint is one endpoint of the selected pods.
type PodMetricsEndpoint struct {
	// port is the name of the container port serving the metrics.
	Port *string `json:"port,omitempty"`
}

// PodMonitorList is a list of PodMonitors.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type PodMonitorList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []PodMonitor `json:"items"`
}
