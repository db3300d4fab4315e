package cnpgsim

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
)

// scramIterations is Postgres's default scram_iterations.
const scramIterations = 4096

// scramVerifier computes the SCRAM-SHA-256 verifier Postgres stores for a
// password, so the plaintext never travels in SQL and cannot reach a
// statement log, an error or pg_stat_activity. The password is used as
// bytes; Postgres would SASLprep-normalise non-ASCII passwords first.
func scramVerifier(password string) (string, error) {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("generate salt: %w", err)
	}
	stored, server, err := scramKeys(password, salt, scramIterations)
	if err != nil {
		return "", err
	}
	b64 := base64.StdEncoding.EncodeToString
	return fmt.Sprintf("SCRAM-SHA-256$%d:%s$%s:%s", scramIterations, b64(salt), b64(stored), b64(server)), nil
}

func scramKeys(password string, salt []byte, iterations int) (stored, server []byte, err error) {
	salted, err := pbkdf2.Key(sha256.New, password, salt, iterations, sha256.Size)
	if err != nil {
		return nil, nil, fmt.Errorf("derive SCRAM key: %w", err)
	}
	clientKey := hmacSHA256(salted, "Client Key")
	storedKey := sha256.Sum256(clientKey)
	return storedKey[:], hmacSHA256(salted, "Server Key"), nil
}

func hmacSHA256(key []byte, msg string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(msg))
	return h.Sum(nil)
}

// scramMatches reports whether a stored verifier (pg_authid.rolpassword)
// belongs to password: it re-derives the keys with the stored salt. This is
// how the Simulator knows, without memory of its own, whether a Secret's
// password is already in place.
func scramMatches(verifier, password string) bool {
	rest, ok := strings.CutPrefix(verifier, "SCRAM-SHA-256$")
	if !ok {
		return false
	}
	iterSalt, keys, ok := strings.Cut(rest, "$")
	if !ok {
		return false
	}
	iterStr, saltB64, ok := strings.Cut(iterSalt, ":")
	if !ok {
		return false
	}
	storedB64, _, ok := strings.Cut(keys, ":")
	if !ok {
		return false
	}
	iterations, err := strconv.Atoi(iterStr)
	if err != nil || iterations <= 0 {
		return false
	}
	salt, err1 := base64.StdEncoding.DecodeString(saltB64)
	want, err2 := base64.StdEncoding.DecodeString(storedB64)
	if err1 != nil || err2 != nil {
		return false
	}
	got, _, err := scramKeys(password, salt, iterations)
	return err == nil && subtle.ConstantTimeCompare(got, want) == 1
}
