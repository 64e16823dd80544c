export declare function isClientAbort(error: unknown): boolean
export declare function quietClientAborts(
  console_?: Pick<Console, 'error' | 'debug' | 'log'>,
  level?: string,
): void
