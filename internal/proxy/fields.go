package proxy

import (
	"strings"

	"github.com/kwire/kwire/codec/schema"
)

// What the proxy must touch in a frame is found in the schemas, never in a
// hand list: broker endpoints in responses (to rewrite them) and secrets in
// requests and responses (to redact them). Both tables are built once, from
// the generated layouts, the first time they are needed.

// isEndpoint reports whether a response struct names a Kafka node's
// address: it has a string Host and an integer Port, and it (or the struct
// holding it) has the node's id (NodeId, BrokerId or LeaderId). That takes
// in Metadata's brokers, FindCoordinator (old and batched), DescribeCluster,
// the nodeEndpoints of Produce, Fetch, ShareFetch and ShareAcknowledge, the
// KRaft nodes of Vote, BeginQuorumEpoch, EndQuorumEpoch, FetchSnapshot and
// DescribeQuorum's listeners, and UpdateRaftVoter's current leader; and it
// leaves out the Kafka Streams application endpoints of
// StreamsGroupHeartbeat and StreamsGroupDescribe, which are not brokers.
func isEndpoint(l, parent *schema.Layout) bool {
	if fieldOf(l, "Host", schema.String) == nil {
		return false
	}
	if fieldOf(l, "Port", schema.Int32) == nil && fieldOf(l, "Port", schema.Uint16) == nil {
		return false
	}
	return hasNodeID(l) || parent != nil && hasNodeID(parent)
}

func hasNodeID(l *schema.Layout) bool {
	for _, n := range []string{"NodeId", "BrokerId", "LeaderId"} {
		if fieldOf(l, n, schema.Int32) != nil {
			return true
		}
	}
	return false
}

func fieldOf(l *schema.Layout, name string, k schema.Kind) *schema.Field {
	for i := range l.Fields {
		if f := &l.Fields[i]; f.Name == name && f.Kind == k {
			return f
		}
	}
	return nil
}

// isSecret reports whether a bytes field holds a secret: SASL
// authentication bytes (SaslAuthenticate's AuthBytes, which carry PLAIN
// passwords and SCRAM proofs), delegation-token HMACs (the token's
// password), and SCRAM credentials (AlterUserScramCredentials' Salt and
// SaltedPassword; in KRaft's UserScramCredentialRecord, Salt, StoredKey
// and ServerKey).
func isSecret(f *schema.Field) bool {
	if f.Kind != schema.Bytes {
		return false
	}
	n := strings.ToLower(f.Name)
	for _, s := range []string{"authbytes", "hmac", "salt", "password", "secret", "credential", "storedkey", "serverkey"} {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// saslSecret reports whether a part of a SASL message, as the codec
// names it, is a secret: PLAIN's password, SCRAM's client proof and
// server verifier (either lets a captured login be attacked offline), a
// JWT's signature, and a bearer token that is no JWT.
func saslSecret(name string) bool {
	switch name {
	case "password", "proof", "verifier", "jwtSignature", "auth":
		return true
	}
	return false
}

// isConfigEntry reports whether a struct is a configuration entry: a
// string Value named by a string Name or Key. That takes in the configs of
// CreateTopics (request and response), AlterConfigs,
// IncrementalAlterConfigs, DescribeConfigs (entries and their synonyms),
// and the topic configs and client tags of the Streams group APIs.
func isConfigEntry(l *schema.Layout) bool {
	return fieldOf(l, "Value", schema.String) != nil &&
		(fieldOf(l, "Name", schema.String) != nil || fieldOf(l, "Key", schema.String) != nil)
}

// configTypePassword is DescribeConfigs' ConfigType for a PASSWORD config
// (Kafka's ConfigDef.Type.PASSWORD; the schemas say it only in prose).
const configTypePassword = 9

// passwordConfigs are Kafka's configurations of type PASSWORD (brokers,
// clients, Connect, and Schema Registry's client), which Kafka itself
// never prints; a name ending in one of them, after a dot
// ("listener.name.internal.ssl.keystore.password"), is one too.
var passwordConfigs = []string{
	"sasl.jaas.config",
	"ssl.key.password", "ssl.keystore.password", "ssl.keystore.key", "ssl.keystore.certificate.chain",
	"ssl.truststore.password", "ssl.truststore.certificates",
	"delegation.token.secret.key", "delegation.token.master.key",
	"password.encoder.secret", "password.encoder.old.secret",
	"sasl.oauthbearer.client.credentials.client.secret", "sasl.oauthbearer.assertion.private.key.passphrase",
	"basic.auth.user.info", "bearer.auth.token", "connection.password",
}

// sensitiveWords are words that, anywhere in a configuration's name
// (split at dots, dashes and underscores), say its value may be a secret.
var sensitiveWords = []string{"password", "passwd", "passphrase", "secret", "secrets", "jaas", "token", "tokens",
	"key", "keys", "credential", "credentials", "userinfo"}

// sensitiveConfig reports whether a configuration's value may be a secret,
// by its name: one of Kafka's PASSWORD configs, or a name that holds
// password, secret, jaas, token, key or credentials (as a word, or inside
// one: "sasl.client.secretValue", "my_db_password").
func sensitiveConfig(name string) bool {
	n := strings.ToLower(name)
	for _, p := range passwordConfigs {
		if n == p || strings.HasSuffix(n, "."+p) {
			return true
		}
	}
	for _, s := range []string{"password", "passwd", "passphrase", "secret", "jaas", "credential"} {
		if strings.Contains(n, s) {
			return true
		}
	}
	for _, w := range strings.FieldsFunc(n, func(r rune) bool { return r == '.' || r == '-' || r == '_' }) {
		for _, s := range sensitiveWords {
			if w == s {
				return true
			}
		}
	}
	return false
}

// tables holds, per API key and version, whether a response can carry
// endpoints and whether either direction can carry secrets.
type tables struct {
	endpoints map[int16][]bool // [version] for responses
	secrets   map[int16][]bool // [version], request or response
	byID      map[int16][]bool // [version]: the request names its topics by id (Fetch 13+, Produce 13+)
}

var builtTables = buildTables()

func buildTables() *tables {
	t := &tables{endpoints: map[int16][]bool{}, secrets: map[int16][]bool{}, byID: map[int16][]bool{}}
	for _, a := range schema.APIs() {
		if a.Key == schema.KeyProduce || a.Key == schema.KeyFetch || a.Key == schema.KeyFetchSnapshot {
			ids := make([]bool, a.Request.Valid.Hi+1)
			for v := a.Request.Valid.Lo; v <= a.Request.Valid.Hi; v++ {
				if d := a.Request.At(v); d != nil {
					ids[v] = reaches(d.Root, nil, v, func(_, _ *schema.Layout, f *schema.Field) bool {
						return f != nil && f.Name == "TopicId" && f.Kind == schema.UUID
					})
				}
			}
			t.byID[a.Key] = ids
		}
		hi := a.Response.Valid.Hi
		if a.Request.Valid.Hi > hi {
			hi = a.Request.Valid.Hi
		}
		if hi < 0 {
			continue
		}
		ep := make([]bool, hi+1)
		sec := make([]bool, hi+1)
		anyEP, anySec := false, false
		for v := int16(0); v <= hi; v++ {
			if d := a.Response.At(v); d != nil {
				ep[v] = reaches(d.Root, nil, v, func(l, parent *schema.Layout, f *schema.Field) bool { return f == nil && isEndpoint(l, parent) })
				sec[v] = reaches(d.Root, nil, v, holdsSecret)
			}
			if d := a.Request.At(v); d != nil && !sec[v] {
				sec[v] = reaches(d.Root, nil, v, holdsSecret)
			}
			anyEP = anyEP || ep[v]
			anySec = anySec || sec[v]
		}
		if anyEP {
			t.endpoints[a.Key] = ep
		}
		if anySec {
			t.secrets[a.Key] = sec
		}
	}
	return t
}

// holdsSecret is reaches' test for secrets: a secret bytes field or a
// configuration entry.
func holdsSecret(l, _ *schema.Layout, f *schema.Field) bool {
	if f == nil {
		return isConfigEntry(l)
	}
	return isSecret(f)
}

// reaches reports whether layout l at version v holds, at any depth, a
// struct or field that match accepts: match is called with each struct
// (field nil) and with each field present at v.
func reaches(l, parent *schema.Layout, v int16, match func(l, parent *schema.Layout, f *schema.Field) bool) bool {
	if match(l, parent, nil) {
		return true
	}
	for i := range l.Fields {
		f := &l.Fields[i]
		if !f.Versions.Contains(v) {
			continue
		}
		if match(l, parent, f) {
			return true
		}
		if f.Struct != nil && reaches(f.Struct, l, v, match) {
			return true
		}
	}
	return false
}

// HasEndpoints reports whether the response of an API at a version can
// carry broker endpoints, which the proxy rewrites.
func HasEndpoints(apiKey, version int16) bool {
	v := builtTables.endpoints[apiKey]
	return v != nil && at(v, version)
}

// HasSecrets reports whether the request or response of an API at a
// version can carry a secret, which the proxy redacts in what it prints.
// A version below 0 cannot be read: it may carry a secret when any version
// of the API can (SaslAuthenticate sent as version -1 is redacted whole).
func HasSecrets(apiKey, version int16) bool {
	v := builtTables.secrets[apiKey]
	if v == nil {
		return false
	}
	if version < 0 {
		for _, s := range v {
			if s {
				return true
			}
		}
		return false
	}
	return at(v, version)
}

// at reads a per-version table; a version newer than known is read as the
// newest (the codec decodes it with the newest layout).
func at(v []bool, version int16) bool {
	switch {
	case version < 0:
		return false
	case int(version) >= len(v):
		return v[len(v)-1]
	}
	return v[version]
}
