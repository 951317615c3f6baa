import Shared

// Apple's POST of {"payload": "<JWT>"}: its body is read as JSON whatever its Content-Type.
Endpoint.main(name: "apple-notify", rawBody: true, handler: AppleNotify.handle)
