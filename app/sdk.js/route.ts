import { sdkScriptRoute } from '@/lib/http/sdk-script'

export const GET = sdkScriptRoute('sdk.js')
