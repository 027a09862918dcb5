package main

import (
	"flag"
	"os"

	"github.com/kwire/kwire/internal/capture"
)

// keyLogFlag is --tls-keylog: the TLS key log (SSLKEYLOGFILE's lines)
// that decrypts a capture's TLS connections, read once the flags are.
type keyLogFlag struct {
	file string
	log  *capture.KeyLog
}

const keyLogUsage = "decrypt TLS connections with the secrets in `FILE`, a key log as SSLKEYLOGFILE has curl and OpenSSL write, or Go's tls.Config.KeyLogWriter and Python's SSLContext.keylog_filename (TLS 1.2 and 1.3, AES-GCM and ChaCha20-Poly1305); a pcapng file's own secrets (editcap --inject-secrets) are used without it"

func (k *keyLogFlag) register(fs *flag.FlagSet) {
	fs.StringVar(&k.file, "tls-keylog", "", keyLogUsage)
}

// load reads the key log named, if any; false (said) when it cannot be
// read or holds no secret.
func (k *keyLogFlag) load(e *env) bool {
	if k.file == "" {
		return true
	}
	f, err := os.Open(k.file)
	if err != nil {
		fail(e, "--tls-keylog: %v", err)
		return false
	}
	defer f.Close()
	if k.log, err = capture.ParseKeyLog(f); err != nil {
		fail(e, "--tls-keylog %s: %v", k.file, err)
		return false
	}
	return true
}
