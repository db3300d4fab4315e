package inspect

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// notSetpoints says why obj is not the child setpoint writes for the
// object kind/name with uid, "" when it is (controlled by that UID, as
// setpoint's ownership check requires). A child of that name that is
// someone else's is the cause of a *Conflict reason, and its data is not
// what setpoint published.
func notSetpoints(obj metav1.Object, kind, name string, uid string) string {
	ref := metav1.GetControllerOfNoCopy(obj)
	switch {
	case ref == nil:
		return fmt.Sprintf("exists and is not setpoint's (no controller reference to %s %s)", kind, name)
	case string(ref.UID) != uid:
		return fmt.Sprintf("exists and is not setpoint's (controlled by %s %s, UID %s)", ref.Kind, ref.Name, ref.UID)
	}
	return ""
}
