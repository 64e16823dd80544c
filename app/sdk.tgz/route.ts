import { sdkPackageRoute } from '@/lib/http/sdk-script'

/** The recorder as an npm package: `npm install https://YOUR-SERVICE/sdk.tgz` (sdk/README.md). */
export const GET = sdkPackageRoute()
