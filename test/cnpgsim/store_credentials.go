package cnpgsim

import (
	"fmt"

	barmanv1 "github.com/setpoint-dev/setpoint/pkg/apis/barmancloud/v1"
)

// storeRefusal is why the object store refuses a Cluster's WAL and base
// backups, as CNPG reports it, or "" when it accepts them. The stand-in's
// store is a folder that checks no key, so it refuses when the
// barman-cloud plugin could not even build its credentials: its
// EnvSetCloudCredentialsAndCertificates (barman-cloud's
// pkg/credentials/env.go) reads the ObjectStore's s3Credentials from
// their Secrets on every archive and backup, access key first, and CNPG
// quotes the plugin's gRPC error.
//
// Simpler than the plugin: an ObjectStore without s3Credentials, and a
// credentials Secret that does not exist, are accepted (the plugin fails
// with "missing S3 credentials" and `while getting secret <name>: secrets
// "<name>" not found`): the sandbox's samples and many tests name a Secret
// they never create, since the stand-in's store checks no key. A Secret
// that exists without the key is refused, with the plugin's words.
func (s *Simulator) storeRefusal(namespace string, cfg barmanv1.BarmanObjectStoreConfiguration) string {
	c := cfg.S3Credentials
	if c == nil || (c.InheritFromIAMRole != nil && *c.InheritFromIAMRole) {
		return ""
	}
	for _, ref := range []*barmanv1.SecretKeySelector{c.AccessKeyID, c.SecretAccessKey} {
		if msg := s.secretKeyError(namespace, ref); msg != "" {
			return "rpc error: code = Unknown desc = " + msg
		}
	}
	return ""
}

// secretKeyError is barman-cloud's extractValueFromSecret's error for a
// Secret that lacks the key.
func (s *Simulator) secretKeyError(namespace string, ref *barmanv1.SecretKeySelector) string {
	if ref == nil {
		return ""
	}
	secret, err := s.secrets.Secrets(namespace).Get(ref.Name)
	if err != nil {
		return "" // not there (accepted, above), or not cached yet
	}
	if _, ok := secret.Data[ref.Key]; !ok {
		return fmt.Sprintf("missing key %s, inside secret %s", ref.Key, ref.Name)
	}
	return ""
}
