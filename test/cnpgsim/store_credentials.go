package cnpgsim

import (
	"fmt"

	barmanv1 "github.com/setpoint-dev/setpoint/pkg/apis/barmancloud/v1"
)

// storeRefusal is why the object store refuses a Cluster's WAL and base
// backups, as CNPG reports it, or "" when it accepts them. The stand-in's
// store is a folder that checks no key, so for S3 it refuses only when
// the barman-cloud plugin could not even build its credentials: its
// EnvSetCloudCredentialsAndCertificates (barman-cloud's
// pkg/credentials/env.go) reads the Secrets the ObjectStore's credentials
// name on every archive and backup, in the order of their fields, and
// CNPG quotes the plugin's gRPC error. An IAM role (inheritFromIAMRole)
// reads no Secret and is accepted: the folder stands in for an S3
// endpoint, and there is no AWS here to ask.
//
// Azure Blob Storage and Google Cloud Storage are not simulated: after
// the same Secret checks (storageAccount, storageKey, storageSasToken;
// applicationCredentials), the store refuses with the stand-in's own
// words (notSimulated), never archiving into the folder as if it had
// reached them. Real CNPG on this machine cannot reach them either.
//
// Simpler than the plugin: an ObjectStore without credentials, and a
// credentials Secret that does not exist, are accepted (the plugin fails
// with "missing S3 credentials" and `while getting secret <name>: secrets
// "<name>" not found`): the sandbox's samples and many tests name a Secret
// they never create, since the stand-in's store checks no key. A Secret
// that exists without the key is refused, with the plugin's words. The
// endpointCA is not read: the folder serves no TLS.
func (s *Simulator) storeRefusal(namespace string, cfg barmanv1.BarmanObjectStoreConfiguration) string {
	var refs []*barmanv1.SecretKeySelector
	var provider string
	switch {
	case cfg.S3Credentials != nil:
		c := cfg.S3Credentials
		if c.InheritFromIAMRole != nil && *c.InheritFromIAMRole {
			return ""
		}
		refs = []*barmanv1.SecretKeySelector{c.AccessKeyID, c.SecretAccessKey}
	case cfg.GoogleCredentials != nil:
		provider = "Google Cloud Storage"
		if c := cfg.GoogleCredentials; c.GKEEnvironment == nil || !*c.GKEEnvironment {
			refs = []*barmanv1.SecretKeySelector{c.ApplicationCredentials}
		}
	case cfg.AzureCredentials != nil:
		provider = "Azure Blob Storage"
		if c := cfg.AzureCredentials; c.InheritFromAzureAD == nil || !*c.InheritFromAzureAD {
			refs = []*barmanv1.SecretKeySelector{c.StorageAccount, c.StorageKey, c.StorageSasToken}
		}
	default:
		return ""
	}
	for _, ref := range refs {
		if msg := s.secretKeyError(namespace, ref); msg != "" {
			return "rpc error: code = Unknown desc = " + msg
		}
	}
	if provider != "" {
		return notSimulated(provider)
	}
	return ""
}

// notSimulated is the stand-in's refusal of a store it does not simulate.
func notSimulated(provider string) string {
	return "cnpgsim: the CNPG stand-in's object store is a local folder standing in for S3: it does not reach " + provider
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
