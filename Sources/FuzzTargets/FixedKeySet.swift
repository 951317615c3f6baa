/// Public keys for the `jws` target, one RSA 2048 and one P-256 (their private halves were thrown away).
public let fixedKeySet = #"{"keys":[{"kty":"RSA","kid":"fuzz-rsa","use":"sig","alg":"RS256","e":"AQAB","n":""#
    + "4kKqTzGCWZJZgpu6Qv_Nkfavx9eMLuxK5B_a8qz5jK55UX5j_uqlEvZDGNq0FlWdPCPaQkIT1xkciMJfueeWeL0bmI"
    + "IsOzr9y-8y3i6cx00YmIpV3DbOSTUTOLxKDAj76dR66qo4RJMqGRavVP-YwoL7dxOSJkykFMZXPKn68l4MAL692USs"
    + "rCNcs8vgcyZB0ph3l_6HOKRccJjCGtRrxM2So4KfGCwzNqLVpQlKFPq-MN6w1iobDnbU5ZDP5fGvCSqO7qKQ8Oc4WW"
    + "9ZddFtfXC0dJK9LRnPeMAVnR263d1brMYQt2jnmQKRxpzbrTZNwNcDKQ7vZ9NAx7eF6omIiw"
    + #""},{"kty":"EC","kid":"fuzz-ec","use":"sig","alg":"ES256","crv":"P-256",""#
    + #""x":"EAZADEMSAB5luYgCYy2kmn5s21A-M0IJC4B-8jF7aeQ","y":"wkx3QJ5Zl0kdkbrolTLWjXulvsS1xi5SJhfAJ8Y-9bw"}]}"#
