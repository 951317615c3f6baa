import Shared

// Apple's form_post and Google's redirect-mode post, back to the page (KitReturn); reads no store.
Endpoint.main(name: "kit-return", rawBody: true, configScope: .sessionCheck, housekeeping: false, handler: KitReturn.handle)
