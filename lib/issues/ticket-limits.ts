/** Lengths a linked ticket's fields may have; shared by the validation and the form's inputs. */
export const TICKET_LIMITS = { provider: 64, url: 2048, identifier: 128 }
