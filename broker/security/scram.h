// SCRAM-SHA-256 and SCRAM-SHA-512 (RFC 5802, RFC 7677), the server side, as Kafka speaks them.
//
// Credentials: from a password, a random salt and an iteration count the broker keeps
//   SaltedPassword = PBKDF2-HMAC-H(password, salt, iterations)
//   StoredKey      = H(HMAC(SaltedPassword, "Client Key"))
//   ServerKey      = HMAC(SaltedPassword, "Server Key")
// and never the password (nor SaltedPassword). As in Kafka the password is used as its UTF-8 bytes
// without SASLprep, and iterations are 4096 to 16384.
//
// The exchange (ScramServerExchange), in SaslAuthenticate's auth_bytes:
//   client-first   n,,n=user,r=<client nonce>         (gs2 header "n,," or "y,,"; "a=<authzid>"
//                                                      only if it names the user itself)
//   server-first   r=<client nonce><server nonce>,s=<salt base64>,i=<iterations>
//   client-final   c=biws,r=<both nonces>,p=<ClientProof base64>
//   server-final   v=<ServerSignature base64>
// Refused: channel binding ("p=" in the gs2 header: skiff offers no SCRAM-*-PLUS), the
// mandatory-extension "m=", Kafka's delegation-token extension "tokenauth" (skiff has no
// delegation tokens), messages over kScramMaxMessageBytes.
//
// An unknown user is not refused at the first message: the exchange carries on with a fake
// credential (its salt derived from the name and a per-process secret, so it is the same on every
// attempt) and fails at the proof with the same message and the same work as a wrong password.
// Kafka fails an unknown user at the first message instead, with the same text; RFC 5802 section
// 9 recommends this, so that the answer does not tell whether the user exists.
//
// Thread-safety: the free functions are thread-safe; one exchange object belongs to one
// connection and is used by one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "protocol/expected.h"

namespace skiff::broker::security {

enum class ScramMechanism { sha256, sha512 };

// "SCRAM-SHA-256" / "SCRAM-SHA-512", Kafka's mechanism names.
std::string_view scram_mechanism_name(ScramMechanism mechanism);
std::optional<ScramMechanism> parse_scram_mechanism(std::string_view name);
// Kafka's ScramMechanism type numbers (DescribeUserScramCredentials): 1 and 2.
int8_t scram_mechanism_type(ScramMechanism mechanism);
// Length of the mechanism's digest: 32 or 64 bytes (StoredKey, ServerKey, proofs).
size_t scram_digest_size(ScramMechanism mechanism);

inline constexpr int32_t kScramMinIterations = 4096;   // Kafka's minimum
inline constexpr int32_t kScramMaxIterations = 16384;  // Kafka's maximum
inline constexpr int32_t kScramDefaultIterations = 4096;
inline constexpr size_t kScramSaltBytes = 32;
// Longest client message accepted; real ones are under 300 bytes.
inline constexpr size_t kScramMaxMessageBytes = 8192;

// What the broker keeps per user and mechanism. Raw bytes, not base64.
struct ScramCredential {
    std::string salt;
    std::string stored_key;
    std::string server_key;
    int32_t iterations = 0;
};

// Derives the credential from a password and a given salt (for tests and for
// AlterUserScramCredentials, where the client sends salt and salted password).
ScramCredential derive_scram_credential(ScramMechanism mechanism, std::string_view password,
                                        std::string_view salt, int32_t iterations);
// The same from SaltedPassword (what AlterUserScramCredentials carries).
ScramCredential scram_credential_from_salted_password(ScramMechanism mechanism,
                                                      std::string_view salted_password,
                                                      std::string_view salt, int32_t iterations);
// With a fresh random salt of kScramSaltBytes. Throws std::runtime_error when the system has no
// randomness to give (it never should).
ScramCredential new_scram_credential(ScramMechanism mechanism, std::string_view password,
                                     int32_t iterations = kScramDefaultIterations);

// The primitives, exposed for the tests' client side and for AlterUserScramCredentials.
std::string scram_hash(ScramMechanism mechanism, std::string_view data);
std::string scram_hmac(ScramMechanism mechanism, std::string_view key, std::string_view data);
std::string scram_salted_password(ScramMechanism mechanism, std::string_view password,
                                  std::string_view salt, int32_t iterations);
// Cryptographically random bytes (OpenSSL's RAND_bytes); throws std::runtime_error on failure.
std::string scram_random_bytes(size_t n);
// Equality of two byte strings in time independent of where they differ.
bool scram_equal_constant_time(std::string_view a, std::string_view b);

// Standard base64 (RFC 4648 section 4, with padding), as SCRAM and the credential file use it.
std::string base64_encode(std::string_view bytes);
// nullopt unless `text` is padded base64 (no whitespace, no stray characters).
std::optional<std::string> base64_decode(std::string_view text);

// RFC 5802's saslname: ',' is written =2C and '=' is =3D. Decoding refuses any other '='.
std::string scram_escape_username(std::string_view name);
std::optional<std::string> scram_unescape_username(std::string_view saslname);

struct ScramError {
    std::string message;  // safe to send to the client
};

// The credential of `user` for the exchange's mechanism, or nullopt when there is none.
using ScramCredentialLookup =
    std::function<std::optional<ScramCredential>(const std::string& user)>;

// The message every authentication failure gives (unknown user and wrong password alike), as
// Kafka words it.
std::string scram_authentication_failed_message(ScramMechanism mechanism);

class ScramServerExchange {
  public:
    // `server_nonce`: empty for a random one (always, outside tests); otherwise used as given
    // (RFC 7677's test vector). It must be printable ASCII without ','.
    ScramServerExchange(ScramMechanism mechanism, ScramCredentialLookup lookup,
                        std::string server_nonce = {});

    // client-first-message -> server-first-message.
    Expected<std::string, ScramError> client_first(std::string_view message);
    // client-final-message -> server-final-message ("v=..."), after which complete() is true.
    Expected<std::string, ScramError> client_final(std::string_view message);

    // True once the client's proof was verified.
    bool complete() const { return state_ == State::complete; }
    // The authenticated user once complete(); before that the name the client gave.
    const std::string& username() const { return username_; }
    ScramMechanism mechanism() const { return mechanism_; }

  private:
    enum class State { initial, first_sent, complete, failed };
    Unexpected<ScramError> fail(std::string message);

    ScramMechanism mechanism_;
    ScramCredentialLookup lookup_;
    std::string server_nonce_;
    State state_ = State::initial;
    std::string username_;
    bool user_known_ = false;
    ScramCredential credential_;
    std::string gs2_header_;
    std::string client_first_bare_;
    std::string server_first_;
    std::string nonce_;  // client nonce + server nonce
};

}  // namespace skiff::broker::security
