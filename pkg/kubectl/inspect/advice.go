package inspect

// reasonAdvice is one reason constant of pkg/apis/postgres/v1alpha1 and
// what the user can do about it. The table of them, reasons, is
// generated (zz_generated.advice.go, by make docs) from the "What to do"
// of each constant's comment: the comment is the one place to change
// the advice, and docs/reference/reasons.md says the same.
type reasonAdvice struct {
	// name is the constant's name, for messages.
	name string
	// reason is its value, the string in status.
	reason string
	// condition is the condition type whose table lists the reason; ""
	// for a reason any condition may carry.
	condition string
	// advice is what to do, in the comment's words: "wait" for a wait
	// that ends on its own, so that nobody "fixes" an object on its way;
	// "nothing" for the reason of a condition in its good state.
	advice string
}

// genericAdvice is for a reason setpoint does not declare (a phase as
// the reason, CloudNativePG's own).
const genericAdvice = "read the condition's message and the child object's status above; setpoint retries on its own"

// Advice is what the user can do about reason, on whichever condition
// it stands: where two constants share the value, the first in the
// reference's order, which is never a Ready reason
// (TestReasonsSharingAValueAreToldApartByCondition).
func Advice(reason string) string { return AdviceFor("", reason) }

// AdviceFor is what the user can do about a condition of conditionType
// with reason. Two constants share a value with different meanings
// (SuperuserAccessOff is Ready's invalid spec and SecretReady's good
// state; PostgresUnreachable is ProvisionerReady's and
// NotAcceptingWrites'): the one of conditionType's own table wins, then
// the first in the reference's order. Ready carries the reason of the
// component or step that holds it back, so it finds that one.
func AdviceFor(conditionType, reason string) string {
	var found *reasonAdvice
	for i := range reasons {
		r := &reasons[i]
		if r.reason != reason {
			continue
		}
		if r.condition == conditionType {
			return r.advice
		}
		if found == nil {
			found = r
		}
	}
	if found == nil {
		return genericAdvice
	}
	return found.advice
}
