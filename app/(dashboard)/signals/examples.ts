/** Prompts that the keyword matcher reads correctly, so they work with or without an AI model. */
export const EXAMPLE_PROMPTS = [
  { name: 'Checkout failures', prompt: 'failed request on /checkout' },
  { name: 'Pricing frustration', prompt: 'rage clicks on /pricing' },
  { name: 'Broken sign-up button', prompt: 'dead clicks on the signup button' },
  { name: 'Coupon errors', prompt: 'errors mentioning coupon' },
] as const
