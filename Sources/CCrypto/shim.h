// OpenSSL's libcrypto (Debian libssl-dev), as ScheddPush uses it: EVP keys for ECDH on P-256,
// the HKDF key derivation, AES-128-GCM and the random generator. Only the OpenSSL 3 API: the
// deprecated low-level EC_KEY/HMAC_CTX calls stay hidden so nothing can reach for them.
#ifndef CCRYPTO_SHIM_H
#define CCRYPTO_SHIM_H
#define OPENSSL_API_COMPAT 30000
#define OPENSSL_NO_DEPRECATED 1
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/param_build.h>
#include <openssl/rand.h>

/// EVP_PKEY_PUBLIC_KEY / EVP_PKEY_KEYPAIR are macro expressions over other macros; these return
/// them so Swift needs no copy of their values.
static inline int ccrypto_selection_public_key(void) { return EVP_PKEY_PUBLIC_KEY; }
static inline int ccrypto_selection_keypair(void) { return EVP_PKEY_KEYPAIR; }

/// OSSL_PARAM_BLD keeps the key and string pointers it is given until OSSL_PARAM_BLD_to_param, so
/// they must outlive the push call: these return C literals (static storage), which a Swift String
/// passed as `const char *` (a temporary) is not.
static inline const char *ccrypto_param_group_name(void) { return OSSL_PKEY_PARAM_GROUP_NAME; }
static inline const char *ccrypto_param_public_key(void) { return OSSL_PKEY_PARAM_PUB_KEY; }
static inline const char *ccrypto_param_private_key(void) { return OSSL_PKEY_PARAM_PRIV_KEY; }
static inline const char *ccrypto_group_p256(void) { return "prime256v1"; }
#endif
