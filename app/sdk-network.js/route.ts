import { sdkScriptRoute } from '@/lib/http/sdk-script'

/** The recorder's network details part, which `/sdk.js` loads from beside itself when asked to. */
export const GET = sdkScriptRoute('sdk-network.js')
